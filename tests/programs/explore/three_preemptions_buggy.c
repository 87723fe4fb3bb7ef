/* three_preemptions_buggy: a worker pool that declares itself dead when every worker starts
 * before main has registered it — a bug that needs three preemptions.
 *
 * Bug: main starts three workers, registering each in the pool's table right after
 * pthread_create returns. A worker checks in as soon as it starts; one that finds itself not yet
 * registered counts as an orphan (the pool assumes its creator died) and then waits on the
 * start semaphore. The pool tolerates orphans as long as one worker checked in registered: when
 * all three are orphans it concludes that nobody owns it, and main's check fails (SIGABRT).
 *
 * Natively main's registration, a few instructions after pthread_create, almost always comes
 * first; it takes three unlucky preemptions in a row.
 *
 * Schedule that exposes it (3 preemptions): main creates worker 0 and is preempted at its next
 * pthread_mutex_lock (preemption 1); worker 0 checks in unregistered and blocks on the start
 * semaphore (a free switch back); main registers worker 0, creates worker 1 and is preempted again
 * (2); the same for worker 2 (3). With two preemptions at most two workers are orphans: each
 * orphan needs main preempted between its pthread_create and its registration.
 *
 * PCT gets there without counting preemptions: a new thread takes a random priority, and each
 * worker that outranks main runs first — so `--strategy pct` finds it within its default budget,
 * while `--strategy pb` needs --preemption-bound 3.
 *
 * Fixed twin: three_preemptions_fixed.c (main registers each worker before creating it). */
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
  if (!registered[id]) ++orphans; /* check in */
  pthread_mutex_unlock(&pool_lock);
  sem_wait(&start_signal);
  return NULL;
}

int main(void) {
  pthread_t threads[kWorkers];
  sem_init(&start_signal, 0, 0);
  for (long i = 0; i < kWorkers; ++i) {
    pthread_create(&threads[i], NULL, worker, (void*)i);
    pthread_mutex_lock(&pool_lock);
    registered[i] = 1;
    pthread_mutex_unlock(&pool_lock);
  }
  /* A pool every worker checked in to as an orphan has no owner: it takes no work. */
  const int owned = orphans < kWorkers;
  for (int i = 0; i < kWorkers; ++i) sem_post(&start_signal);
  for (int i = 0; i < kWorkers; ++i) pthread_join(threads[i], NULL);
  printf("%d orphan check-ins\n", orphans);
  assert(owned);
  return 0;
}
