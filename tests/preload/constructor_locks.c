/* A library whose constructor uses the wrapped functions. A program's own libraries are
 * initialised before LD_PRELOAD'ed ones, so this runs before the shim's constructor: every
 * wrapper called here finds its real function unresolved and the supervisor not yet asked.
 * It even starts a thread, which takes the same locks. The program reads the tally. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

static atomic_int failures, checks; /* the worker thread counts too */

#define EXPECT(call, expected)                                                                      \
  do {                                                                                              \
    long result_ = (long)(call);                                                                    \
    ++checks;                                                                                       \
    if (result_ != (long)(expected)) {                                                              \
      fprintf(stderr, "constructor_locks: %s returned %ld, expected %ld\n", #call, result_,       \
              (long)(expected));                                                                    \
      ++failures;                                                                                   \
    }                                                                                               \
  } while (0)

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static sem_t started;
static int counter, woken;

static void *worker(void *arg) {
  (void)arg;
  EXPECT(sem_post(&started), 0);
  for (int i = 0; i < 10000; ++i) {
    pthread_mutex_lock(&mutex);
    ++counter;
    pthread_mutex_unlock(&mutex);
  }
  pthread_mutex_lock(&mutex);
  woken = 1;
  EXPECT(pthread_cond_signal(&cond), 0);
  pthread_mutex_unlock(&mutex);
  return NULL;
}

__attribute__((constructor)) static void use_locks_before_the_shim_is_initialised(void) {
  static const struct timespec past = {0, 0};
  EXPECT(pthread_mutex_lock(&mutex), 0);
  EXPECT(pthread_mutex_trylock(&mutex), EBUSY);
  EXPECT(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
  EXPECT(pthread_mutex_unlock(&mutex), 0);
  EXPECT(sem_init(&started, 0, 0), 0);
  EXPECT(sem_trywait(&started), -1);
  EXPECT(errno, EAGAIN);

  pthread_t t;
  EXPECT(pthread_create(&t, NULL, worker, NULL), 0);
  EXPECT(sem_wait(&started), 0);
  for (int i = 0; i < 10000; ++i) {
    pthread_mutex_lock(&mutex);
    ++counter;
    pthread_mutex_unlock(&mutex);
  }
  pthread_mutex_lock(&mutex);
  while (!woken) EXPECT(pthread_cond_wait(&cond, &mutex), 0);
  pthread_mutex_unlock(&mutex);
  EXPECT(pthread_join(t, NULL), 0);
  EXPECT(counter, 20000);

  mtx_t m;
  mtx_init(&m, mtx_plain);
  EXPECT(mtx_lock(&m), thrd_success);
  EXPECT(mtx_trylock(&m), thrd_busy);
  EXPECT(mtx_unlock(&m), thrd_success);
  mtx_destroy(&m);
}

int constructor_locks_checks(void) { return checks; }
int constructor_locks_failures(void) { return failures; }
