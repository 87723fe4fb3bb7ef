/* atomic_storm: two threads each make N atomic increments of one counter (N the first argument),
 * and main checks the sum. Correct; what it is for is its number of atomic operations: a
 * learning execution that looks for races stops at each, and must stop looking past its budget
 * rather than take minutes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long counter;
static long per_thread;

static void* increment(void* arg) {
  for (long i = 0; i < per_thread; ++i) atomic_fetch_add(&counter, 1);
  return arg;
}

int main(int argc, char** argv) {
  per_thread = argc > 1 ? atol(argv[1]) : 1000;
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, increment, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("counter %ld\n", atomic_load(&counter));
  return atomic_load(&counter) == 2 * per_thread ? 0 : 1;
}
