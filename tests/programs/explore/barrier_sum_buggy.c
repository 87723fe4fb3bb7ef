/* barrier_sum_buggy: a two-phase computation whose barrier between the phases is missing. Each
 * worker sums its half of 1..N into its own partial sum (phase 1); then the last worker adds the
 * two partial sums and the main thread prints the total (phase 2). Nothing makes the combining
 * worker wait for the other's phase 1: when it runs first, it adds a partial sum of 0 and the
 * program prints a wrong total — and exits 0. Only an output oracle sees it: --same-output
 * (the non-preemptive schedule prints the right total) or --fail-on-output.
 *
 * Schedule that exposes it (no preemption): at main's join both workers are runnable; the
 * combining worker runs first.
 *
 * Fixed twin: barrier_sum_fixed.c (a pthread_barrier_wait between the phases). */
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 2, kCount = 1000 };

static long partial[kWorkers];
static long total;

static void* worker(void* arg) {
  const long index = (long)arg;
  long sum = 0;
  for (long i = index * kCount / kWorkers + 1; i <= (index + 1) * kCount / kWorkers; ++i) sum += i;
  partial[index] = sum;
  /* Missing: a barrier, so that every partial sum is in before the last worker adds them. */
  if (index == kWorkers - 1) {
    long all = 0;
    for (int w = 0; w < kWorkers; ++w) all += partial[w];
    total = all;
  }
  return NULL;
}

int main(void) {
  pthread_t threads[kWorkers];
  for (long w = 0; w < kWorkers; ++w) pthread_create(&threads[w], NULL, worker, (void*)w);
  for (int w = 0; w < kWorkers; ++w) pthread_join(threads[w], NULL);
  printf("total %ld\n", total);
  return 0;
}
