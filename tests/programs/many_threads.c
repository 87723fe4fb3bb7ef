/* 200 threads created, each takes a lock once, all joined. */
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 200 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arrived;

static void* arrive(void* arg) {
  pthread_mutex_lock(&lock);
  ++arrived;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    if (pthread_create(&threads[i], NULL, arrive, NULL) != 0) return 2;
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  printf("%d threads arrived\n", arrived);
  return arrived == kThreads ? 0 : 1;
}
