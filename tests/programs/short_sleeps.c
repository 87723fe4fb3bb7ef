/* usleep and nanosleep, about 10 ms in all, in the main thread and in two threads sleeping at
 * once; each sleeper measures that at least its requested time passed on CLOCK_MONOTONIC. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long elapsed_us(const struct timespec* start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start->tv_sec) * 1000000L + (now.tv_nsec - start->tv_nsec) / 1000;
}

static void* sleeper(void* arg) {
  const long us = (long)arg;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  const struct timespec duration = {0, us * 1000};
  nanosleep(&duration, NULL);
  return (void*)(long)(elapsed_us(&start) >= us);
}

int main(void) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < 3; ++i) usleep(1000);
  const int main_ok = elapsed_us(&start) >= 3000;
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, sleeper, (void*)4000L);
  pthread_create(&threads[1], NULL, sleeper, (void*)2000L);
  int ok = main_ok;
  for (int i = 0; i < 2; ++i) {
    void* result;
    pthread_join(threads[i], &result);
    ok &= (long)result == 1;
  }
  printf("every sleep lasted at least its request: %s\n", ok ? "yes" : "no");
  return ok ? 0 : 1;
}
