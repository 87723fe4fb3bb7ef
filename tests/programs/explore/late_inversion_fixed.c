/* late_inversion_fixed: late_inversion_buggy.c with one lock order. Every worker that needs both
 * A and B takes A first, so no execution shows a thread taking A while it holds B: prediction
 * finds no cycle, and no schedule deadlocks. */
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

static void both(void) {
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  ++shared_total;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
}

static void* first(void* arg) {
  (void)arg;
  both();
  return NULL;
}

static void* middle(void* arg) {
  own_work((int)(long)arg, 3);
  return NULL;
}

static void* last(void* arg) {
  own_work((int)(long)arg, kOwnWork);
  both(); /* A, then B, like the first */
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
