/* barrier_sum_fixed: the two-phase computation of barrier_sum_buggy.c, with its barrier between
 * the phases: the combining worker adds the partial sums only once both are in. Every schedule
 * prints the total of 1..1000, 500500. */
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 2, kCount = 1000 };

static long partial[kWorkers];
static long total;
static pthread_barrier_t phases;

static void* worker(void* arg) {
  const long index = (long)arg;
  long sum = 0;
  for (long i = index * kCount / kWorkers + 1; i <= (index + 1) * kCount / kWorkers; ++i) sum += i;
  partial[index] = sum;
  pthread_barrier_wait(&phases); /* every partial sum is in before the last worker adds them */
  if (index == kWorkers - 1) {
    long all = 0;
    for (int w = 0; w < kWorkers; ++w) all += partial[w];
    total = all;
  }
  return NULL;
}

int main(void) {
  pthread_t threads[kWorkers];
  pthread_barrier_init(&phases, NULL, kWorkers);
  for (long w = 0; w < kWorkers; ++w) pthread_create(&threads[w], NULL, worker, (void*)w);
  for (int w = 0; w < kWorkers; ++w) pthread_join(threads[w], NULL);
  printf("total %ld\n", total);
  return 0;
}
