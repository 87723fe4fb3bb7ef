/* yield_barrier_buggy [THREADS]: THREADS threads (default 8) meet at a barrier that spins on
 * sched_yield — as spin-then-yield barriers in thread pools and OpenMP runtimes do — then two of
 * them update a shared total with the atomicity violation of atomicity_buggy: read under the
 * lock, write back under the lock in a second critical section.
 *
 * Bug (1 preemption): the first updater is preempted between its read and its write-back while
 * the second updates; the first then writes a total computed from the stale read. main finds the
 * wrong total: SIGABRT.
 *
 * What it is for: every sched_yield of the barrier is a scheduling point where any thread may go
 * next without a preemption (the yielding thread gives way), so a preemption-bounded search
 * spends its round 0 on the barrier's orders — thousands of them — before any schedule with the
 * one preemption the bug needs; a delay-bounded search has one schedule with no delay. (The
 * strategies' measurement, bench/run_benchmarks.py --only strategies.)
 *
 * Fixed twin: yield_barrier_fixed.c (read and write back in one critical section). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 256 };

static int thread_count = 8;
static atomic_int arrived;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static long total; /* guarded by total_lock */

static long read_total(void) {
  pthread_mutex_lock(&total_lock);
  long value = total;
  pthread_mutex_unlock(&total_lock);
  return value;
}

static void write_total(long value) {
  pthread_mutex_lock(&total_lock);
  total = value;
  pthread_mutex_unlock(&total_lock);
}

static void* worker(void* arg) {
  const long index = (long)arg;
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < thread_count) sched_yield();
  if (index < 2) {
    long current = read_total();
    /* The window: the lock is free here, yet `current` is used as if it still held. */
    write_total(current + index + 1);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) thread_count = atoi(argv[1]);
  if (thread_count < 2 || thread_count > kMaxThreads) {
    fprintf(stderr, "usage: yield_barrier_buggy [THREADS 2..%d]\n", kMaxThreads);
    return 2;
  }
  pthread_t threads[kMaxThreads];
  for (long i = 0; i < thread_count; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int i = 0; i < thread_count; ++i) pthread_join(threads[i], NULL);
  printf("total %ld\n", total);
  assert(total == 3);
  return 0;
}
