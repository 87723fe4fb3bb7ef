/* three_preemptions_fixed: the correct twin of three_preemptions_buggy.c. main registers each
 * worker before creating it, so a worker that starts at once still finds itself registered and
 * the pool is never declared ownerless. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { kWorkers = 3 };

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t start_signal;
static int registered[kWorkers]; /* guarded by pool_lock */
static int orphans;              /* guarded by pool_lock */

static void* worker(void* arg) {
  const int id = (int)(long)arg;
  pthread_mutex_lock(&pool_lock);
  if (!registered[id]) ++orphans;
  pthread_mutex_unlock(&pool_lock);
  sem_wait(&start_signal);
  return NULL;
}

int main(void) {
  pthread_t threads[kWorkers];
  sem_init(&start_signal, 0, 0);
  for (long i = 0; i < kWorkers; ++i) {
    pthread_mutex_lock(&pool_lock);
    registered[i] = 1;
    pthread_mutex_unlock(&pool_lock);
    pthread_create(&threads[i], NULL, worker, (void*)i);
  }
  /* A pool every worker checked in to as an orphan has no owner: it takes no work. */
  const int owned = orphans < kWorkers;
  for (int i = 0; i < kWorkers; ++i) sem_post(&start_signal);
  for (int i = 0; i < kWorkers; ++i) pthread_join(threads[i], NULL);
  printf("%d orphan check-ins\n", orphans);
  assert(owned);
  return 0;
}
