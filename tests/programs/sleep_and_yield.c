/* Short sleeps and a sched_yield hand-off through atomics. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { kRounds = 500 };
static atomic_int turn;

static void* pong(void* arg) {
  for (int i = 0; i < kRounds; ++i) {
    while (atomic_load(&turn) != 1) sched_yield();
    atomic_store(&turn, 0);
  }
  return arg;
}

int main(void) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < 5; ++i) usleep(2000);
  struct timespec ten_ms = {0, 10000000};
  nanosleep(&ten_ms, NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  const long slept_ms = (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1000000;
  pthread_t thread;
  pthread_create(&thread, NULL, pong, NULL);
  for (int i = 0; i < kRounds; ++i) {
    while (atomic_load(&turn) != 0) sched_yield();
    atomic_store(&turn, 1);
  }
  pthread_join(thread, NULL);
  printf("slept at least 20 ms: %s; %d yield hand-offs\n", slept_ms >= 20 ? "yes" : "no", kRounds);
  return slept_ms >= 20 ? 0 : 1;
}
