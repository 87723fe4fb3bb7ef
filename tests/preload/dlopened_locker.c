/* A library the test loads with dlopen after start-up: its references to the wrapped functions
 * are bound then, through the global scope, so with the shim preloaded they must reach the
 * shim's wrappers and behave as the real functions. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static int failures;
#define EXPECT(call, expected)                                                              \
  do {                                                                                      \
    long result_ = (long)(call);                                                            \
    if (result_ != (long)(expected)) {                                                      \
      fprintf(stderr, "dlopened_locker: %s returned %ld, expected %ld\n", #call, result_, \
              (long)(expected));                                                            \
      ++failures;                                                                           \
    }                                                                                       \
  } while (0)

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;

static void *count(void *arg) {
  (void)arg;
  for (int i = 0; i < 20000; ++i) {
    pthread_mutex_lock(&mutex);
    ++counter;
    pthread_mutex_unlock(&mutex);
  }
  return NULL;
}

int dlopened_locker_run(void) {
  static const struct timespec past = {0, 0};
  pthread_t threads[3];
  for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, count, NULL);
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  EXPECT(counter, 60000);
  EXPECT(pthread_mutex_lock(&mutex), 0);
  EXPECT(pthread_mutex_trylock(&mutex), EBUSY);
  EXPECT(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
  EXPECT(pthread_mutex_unlock(&mutex), 0);
  sem_t sem;
  sem_init(&sem, 0, 0);
  EXPECT(sem_trywait(&sem), -1);
  EXPECT(errno, EAGAIN);
  EXPECT(sem_post(&sem), 0);
  EXPECT(sem_wait(&sem), 0);
  return failures;
}

/* The file that defines what this library's pthread_mutex_lock reference is bound to. */
const char *dlopened_locker_mutex_lock_is_in(void) {
  Dl_info info;
  if (dladdr((const void *)&pthread_mutex_lock, &info) == 0 || info.dli_fname == NULL) return "";
  return info.dli_fname;
}
