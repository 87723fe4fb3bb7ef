/* late_inversion_buggy: a lock-order inversion that a schedule search reaches late, and that one
 * execution already shows.
 *
 * Bug: five workers. The first locks A, then B, at once. The last locks B, then A — but only
 * after 25 locked operations of its own. The three between do unrelated locked work. If the
 * first holds A when the last holds B, each waits for the other's lock for ever.
 *
 * Natively the first worker is long done when the last gets there: it never deadlocks. A
 * preemption-bounded search needs the first worker preempted between its two locks while the
 * last runs its 25 operations, after the others: over a thousand executions. The first,
 * non-preemptive execution already holds the evidence — one thread took B while it held A,
 * another took A while it held B — so prediction (explore --predict-budget) makes it happen in
 * its first directed execution.
 *
 * Twins: late_inversion_fixed.c (the last worker takes A before B: nothing to predict) and
 * late_inversion_gated.c (both inversions under a common gate lock: predicted, then ruled out). */
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 5, kOwnWork = 25 };

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t own_lock[kWorkers] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                             PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                             PTHREAD_MUTEX_INITIALIZER};
static long shared_total;
static long own_total[kWorkers];

static void own_work(int worker, int times) {
  for (int i = 0; i < times; ++i) {
    pthread_mutex_lock(&own_lock[worker]);
    ++own_total[worker];
    pthread_mutex_unlock(&own_lock[worker]);
  }
}

static void* first(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  ++shared_total;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return NULL;
}

static void* middle(void* arg) {
  own_work((int)(long)arg, 3);
  return NULL;
}

static void* last(void* arg) {
  own_work((int)(long)arg, kOwnWork);
  pthread_mutex_lock(&lock_b);
  pthread_mutex_lock(&lock_a); /* the inversion: B, then A */
  ++shared_total;
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return NULL;
}

int main(void) {
  pthread_t workers[kWorkers];
  for (long i = 0; i < kWorkers; ++i) {
    void* (*body)(void*) = i == 0 ? first : i == kWorkers - 1 ? last : middle;
    pthread_create(&workers[i], NULL, body, (void*)i);
  }
  for (int i = 0; i < kWorkers; ++i) pthread_join(workers[i], NULL);
  printf("total %ld\n", shared_total);
  return 0;
}
