/* Four threads increment one counter under a mutex; yielding inside the critical section makes
 * the others find it locked, so the futex wait/wake path is exercised. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

enum { kThreads = 4, kIncrements = 5000 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* increment(void* arg) {
  for (int i = 0; i < kIncrements; ++i) {
    pthread_mutex_lock(&lock);
    long seen = counter;
    if (i % 100 == 0) sched_yield();
    counter = seen + 1;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, increment, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  printf("counter %ld (expected %d)\n", counter, kThreads * kIncrements);
  return counter == kThreads * kIncrements ? 0 : 1;
}
