/* The shim in a chain of interposers (counting_interposer.c preloaded with it, in either
 * order): every call goes through both, exactly once, and reaches the C library. */
#include <pthread.h>
#include <semaphore.h>

#include "test_support.h"

enum { kThreads = 3, kIterations = 5000 };
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn;

static void *count(void *arg) {
  (void)arg;
  for (int i = 0; i < kIterations; ++i) {
    pthread_mutex_lock(&mutex);
    ++counter;
    pthread_mutex_unlock(&mutex);
  }
  return NULL;
}

static void *take_turn(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mutex);
  turn = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&mutex);
  return NULL;
}

static int in_object(const void *address, const char *object) {
  Dl_info info;
  return address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL &&
         strstr(info.dli_fname, object) != NULL;
}

int main(void) {
  long (*calls)(const char *) = (long (*)(const char *))dlsym(RTLD_DEFAULT, "counting_interposer_calls");
  void *(*next)(const char *) = (void *(*)(const char *))dlsym(RTLD_DEFAULT, "counting_interposer_next");
  int shim_loaded = dlopen("libchess_preload.so", RTLD_NOW | RTLD_NOLOAD) != NULL;
  if (calls == NULL || next == NULL || !shim_loaded) {
    fprintf(stderr, "chain: run with both the shim and libcounting_interposer.so preloaded\n");
    return 1;
  }
  int shim_first = test_shim_is_interposed();
  if (!shim_first) {
    /* The interposer comes first: what it forwards to must be the shim. */
    CHECK(in_object(next("pthread_mutex_lock"), "libchess_preload.so"));
    CHECK(in_object(next("pthread_cond_wait"), "libchess_preload.so"));
    CHECK(in_object(next("sem_post"), "libchess_preload.so"));
  } else {
    /* The shim comes first: the interposer is what comes next, after the shim. */
    CHECK(in_object(next("pthread_mutex_lock"), "libc.so"));
  }

  long locks_before = calls("pthread_mutex_lock"), unlocks_before = calls("pthread_mutex_unlock");
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, count, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  CHECK_EQ(counter, kThreads * kIterations);
  CHECK_EQ(calls("pthread_mutex_lock") - locks_before, kThreads * kIterations);
  CHECK_EQ(calls("pthread_mutex_unlock") - unlocks_before, kThreads * kIterations);

  pthread_t t;
  pthread_mutex_lock(&mutex);
  pthread_create(&t, NULL, take_turn, NULL);
  long waits_before = calls("pthread_cond_wait");
  while (!turn) CHECK_EQ(pthread_cond_wait(&cond, &mutex), 0);
  CHECK(calls("pthread_cond_wait") - waits_before >= 1);
  pthread_mutex_unlock(&mutex);
  pthread_join(t, NULL);

  sem_t s;
  sem_init(&s, 0, 0);
  long posts_before = calls("sem_post");
  CHECK_EQ(sem_post(&s), 0);
  CHECK_EQ(calls("sem_post") - posts_before, 1);
  CHECK_EQ(sem_trywait(&s), 0);
  if (test_finish("chain") != 0) return 1;
  printf("chain: the shim %s the other interposer; every call went through both\n",
         shim_first ? "precedes" : "follows");
  return 0;
}
