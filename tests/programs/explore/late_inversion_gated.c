/* late_inversion_gated: late_inversion_buggy.c with both inversions under a gate lock. The first
 * worker takes A then B, the last B then A, but each holds G all the while: they can never be
 * between their two locks at once. The lock order relation still has the cycle A→B, B→A;
 * iGoodlock rules it out because both steps hold G (a gate lock), so nothing is predicted or
 * reported, and no schedule deadlocks. */
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 5, kOwnWork = 25 };

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
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
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  ++shared_total;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&gate);
  return NULL;
}

static void* middle(void* arg) {
  own_work((int)(long)arg, 3);
  return NULL;
}

static void* last(void* arg) {
  own_work((int)(long)arg, kOwnWork);
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&lock_b);
  pthread_mutex_lock(&lock_a); /* B, then A — under the gate */
  ++shared_total;
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&gate);
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
