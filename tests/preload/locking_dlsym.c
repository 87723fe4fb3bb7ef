/* A test-only interposer on dlsym that calls every wrapped function before answering, the way a
 * dlsym could that mallocs through an allocator taking pthread locks (glibc before 2.34 did on
 * every thread's first call). The shim resolves its real functions with dlsym, so with this
 * library loaded every wrapper is entered while the shim is still inside that resolution: the
 * bootstrap path of preload/real_functions.c. Each call checks its result (none may block: the
 * waits time out at once or fail on a mutex the thread does not hold); the program reads the
 * tallies through the functions at the bottom.
 *
 * Forwarding RTLD_NEXT from here looks "next after this library" rather than "next after the
 * caller"; since this library comes after the shim and defines none of the wrapped functions,
 * both find the C library's definitions. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <time.h>

static int calls_from_shim, exercised, failures;

#define EXPECT(call, expected)                                                               \
  do {                                                                                       \
    long result_ = (long)(call);                                                             \
    if (result_ != (long)(expected)) {                                                       \
      fprintf(stderr, "locking_dlsym: %s returned %ld, expected %ld\n", #call, result_,    \
              (long)(expected));                                                             \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

static pthread_mutex_t mutex = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static once_flag c11_once = ONCE_FLAG_INIT;
static int once_runs, c11_once_runs;
static void count_once(void) { ++once_runs; }
static void count_c11_once(void) { ++c11_once_runs; }

static void call_every_wrapped_function(void) {
  static const struct timespec past = {0, 0};
  EXPECT(pthread_mutex_lock(&mutex), 0);
  EXPECT(pthread_mutex_trylock(&mutex), EBUSY);
  EXPECT(pthread_mutex_timedlock(&mutex, &past), EDEADLK);
  EXPECT(pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &past), EDEADLK);
  EXPECT(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
  EXPECT(pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &past), ETIMEDOUT);
  EXPECT(pthread_cond_signal(&cond), 0);
  EXPECT(pthread_cond_broadcast(&cond), 0);
  EXPECT(pthread_mutex_unlock(&mutex), 0);
  EXPECT(pthread_cond_wait(&cond, &mutex), EPERM); /* not held: fails before waiting */

  EXPECT(pthread_rwlock_rdlock(&rwlock), 0);
  EXPECT(pthread_rwlock_tryrdlock(&rwlock), 0);
  EXPECT(pthread_rwlock_timedrdlock(&rwlock, &past), 0);
  EXPECT(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &past), 0);
  EXPECT(pthread_rwlock_trywrlock(&rwlock), EBUSY);
  EXPECT(pthread_rwlock_timedwrlock(&rwlock, &past), ETIMEDOUT);
  EXPECT(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &past), ETIMEDOUT);
  for (int i = 0; i < 4; ++i) EXPECT(pthread_rwlock_unlock(&rwlock), 0);
  EXPECT(pthread_rwlock_wrlock(&rwlock), 0);
  EXPECT(pthread_rwlock_unlock(&rwlock), 0);

  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 1);
  EXPECT(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
  pthread_barrier_destroy(&barrier);

  sem_t sem;
  sem_init(&sem, 0, 0);
  EXPECT(sem_trywait(&sem), -1);
  EXPECT(sem_timedwait(&sem, &past), -1);
  EXPECT(sem_clockwait(&sem, CLOCK_MONOTONIC, &past), -1);
  for (int i = 0; i < 4; ++i) EXPECT(sem_post(&sem), 0);
  EXPECT(sem_wait(&sem), 0);
  EXPECT(sem_trywait(&sem), 0);
  EXPECT(sem_timedwait(&sem, &past), 0);
  EXPECT(sem_clockwait(&sem, CLOCK_MONOTONIC, &past), 0);
  sem_destroy(&sem);

  pthread_spinlock_t spin;
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  EXPECT(pthread_spin_lock(&spin), 0);
  EXPECT(pthread_spin_trylock(&spin), EBUSY);
  EXPECT(pthread_spin_unlock(&spin), 0);
  pthread_spin_destroy(&spin);

  EXPECT(pthread_once(&once, count_once), 0);
  call_once(&c11_once, count_c11_once);
  EXPECT(once_runs, 1);
  EXPECT(c11_once_runs, 1);

  mtx_t mtx, recursive;
  mtx_init(&mtx, mtx_timed);
  mtx_init(&recursive, mtx_plain | mtx_recursive);
  cnd_t cnd;
  cnd_init(&cnd);
  EXPECT(mtx_lock(&mtx), thrd_success);
  EXPECT(mtx_trylock(&mtx), thrd_busy);
  EXPECT(cnd_timedwait(&cnd, &mtx, &past), thrd_timedout);
  EXPECT(cnd_signal(&cnd), thrd_success);
  EXPECT(cnd_broadcast(&cnd), thrd_success);
  EXPECT(mtx_unlock(&mtx), thrd_success);
  EXPECT(mtx_timedlock(&mtx, &past), thrd_success);
  EXPECT(mtx_unlock(&mtx), thrd_success);
  EXPECT(cnd_wait(&cnd, &recursive), thrd_error); /* not held: fails before waiting */
  cnd_destroy(&cnd);
  mtx_destroy(&recursive);
  mtx_destroy(&mtx);
  ++exercised;
}

static int from_shim(const void *return_address) {
  Dl_info info;
  return dladdr(return_address, &info) != 0 && info.dli_fname != NULL &&
         strstr(info.dli_fname, "libchess_preload.so") != NULL;
}

void *dlsym(void *handle, const char *name) {
  static void *(*real_dlsym)(void *, const char *);
  if (real_dlsym == NULL) {
    real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (real_dlsym == NULL)
      real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  }
  if (from_shim(__builtin_return_address(0))) {
    ++calls_from_shim;
    int saved = errno;
    call_every_wrapped_function();
    errno = saved;
  }
  return real_dlsym(handle, name);
}

int locking_dlsym_calls_from_shim(void) { return calls_from_shim; }
int locking_dlsym_rounds(void) { return exercised; }
int locking_dlsym_failures(void) { return failures; }
