/* A sleep-heavy program: 4 threads, each sleeping `sleeps` times for `ms` milliseconds
 * (default 50 x 10 ms: 200 sleeps, about 0.5 s natively). Under `chess-trace run` the sleeps are
 * in virtual time and cost no wall time; the benchmark measures the wall time from outside. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kThreads = 4 };
static long sleeps = 50;
static long ms = 10;

static void* sleeper(void* arg) {
  const struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
  for (long i = 0; i < sleeps; ++i) nanosleep(&d, NULL);
  return arg;
}

int main(int argc, char** argv) {
  if (argc > 1) sleeps = atol(argv[1]);
  if (argc > 2) ms = atol(argv[2]);
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, sleeper, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  printf("sleeps %ld\n", kThreads * sleeps);
  return 0;
}
