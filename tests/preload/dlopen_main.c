/* The shim and dlopen, both ways round.
 *
 *   dlopen_main LOCKER_LIBRARY SHIM_LIBRARY
 *
 * A library dlopen'ed after start-up binds to the shim when the shim is preloaded, and works.
 * The shim itself, when dlopen'ed into a process that did not preload it (which chess-trace
 * never does, but nothing should break), initialises, stays inert, and its wrappers reached
 * through dlsym behave as the real functions. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

#include "test_support.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LOCKER_LIBRARY SHIM_LIBRARY\n", argv[0]);
    return 2;
  }
  test_check_expected_shim();
  int preloaded = test_shim_is_interposed();

  void *locker = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (locker == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  int (*run)(void) = (int (*)(void))dlsym(locker, "dlopened_locker_run");
  const char *(*bound_to)(void) = (const char *(*)(void))dlsym(locker, "dlopened_locker_mutex_lock_is_in");
  CHECK(run != NULL && bound_to != NULL);
  if (run == NULL || bound_to == NULL) return 1;
  CHECK_EQ(run(), 0);
  CHECK_EQ(strstr(bound_to(), "libchess_preload.so") != NULL, preloaded);

  void *shim = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (shim == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
    return 1;
  }
  int (*shim_lock)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(shim, "pthread_mutex_lock");
  int (*shim_trylock)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(shim, "pthread_mutex_trylock");
  int (*shim_unlock)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(shim, "pthread_mutex_unlock");
  int (*shim_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *) =
      (int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *))dlsym(shim, "pthread_cond_timedwait");
  int (*shim_sem_trywait)(sem_t *) = (int (*)(sem_t *))dlsym(shim, "sem_trywait");
  int (*shim_sem_post)(sem_t *) = (int (*)(sem_t *))dlsym(shim, "sem_post");
  CHECK(shim_lock && shim_trylock && shim_unlock && shim_cond_timedwait && shim_sem_trywait && shim_sem_post);
  if (test_failures != 0) return test_finish("dlopen");
  Dl_info info;
  CHECK(dladdr((const void *)shim_lock, &info) != 0 && strstr(info.dli_fname, "libchess_preload.so") != NULL);
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  static const struct timespec past = {0, 0};
  CHECK_EQ(shim_lock(&m), 0);
  CHECK_EQ(shim_trylock(&m), EBUSY);
  CHECK_EQ(shim_cond_timedwait(&c, &m, &past), ETIMEDOUT);
  CHECK_EQ(shim_unlock(&m), 0);
  CHECK_EQ(shim_trylock(&m), 0);
  CHECK_EQ(shim_unlock(&m), 0);
  sem_t s;
  sem_init(&s, 0, 0);
  errno = 0;
  CHECK_EQ(shim_sem_trywait(&s), -1);
  CHECK_EQ(errno, EAGAIN);
  CHECK_EQ(shim_sem_post(&s), 0);
  CHECK_EQ(shim_sem_trywait(&s), 0);
  /* The shim is linked -z nodelete: a dlclose must leave it mapped, since calls may be bound
   * to it. */
  CHECK_EQ(dlclose(shim), 0);
  CHECK_EQ(shim_lock(&m), 0);
  CHECK_EQ(shim_unlock(&m), 0);
  dlclose(locker);
  if (test_finish("dlopen") != 0) return 1;
  printf("dlopen: a dlopen'ed library works with the shim %s; a dlopen'ed shim works\n",
         preloaded ? "preloaded" : "absent");
  return 0;
}
