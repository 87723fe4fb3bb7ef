/* The shim's first-call path, driven by locking_dlsym.c: while the shim asks dlsym for the real
 * functions, every wrapper is called from inside that dlsym. None may recurse or deadlock, and
 * each must behave as the real function. Afterwards the ordinary path must work too. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

#include "test_support.h"

int locking_dlsym_calls_from_shim(void);
int locking_dlsym_rounds(void);
int locking_dlsym_failures(void);

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void *signal_ready(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mutex);
  ready = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&mutex);
  return NULL;
}

int main(void) {
  test_check_expected_shim();
  if (test_shim_is_interposed()) {
    /* The shim resolves with one dlsym (or dlvsym) per wrapped function; each dlsym call ran
     * the whole set. */
    CHECK(locking_dlsym_calls_from_shim() > 0);
    CHECK_EQ(locking_dlsym_rounds(), locking_dlsym_calls_from_shim());
  }
  CHECK_EQ(locking_dlsym_failures(), 0);

  pthread_t t;
  pthread_create(&t, NULL, signal_ready, NULL);
  pthread_mutex_lock(&mutex);
  while (!ready) CHECK_EQ(pthread_cond_wait(&cond, &mutex), 0);
  CHECK_EQ(pthread_mutex_trylock(&mutex), EBUSY);
  pthread_mutex_unlock(&mutex);
  pthread_join(t, NULL);
  if (test_finish("bootstrap") != 0) return 1;
  printf("bootstrap: %d wrapped-function rounds inside the shim's dlsym calls, no failures\n",
         locking_dlsym_rounds());
  return 0;
}
