/* Priority-inheritance mutexes take the FUTEX_LOCK_PI / UNLOCK_PI path when contended: the
 * supervisor must follow the kernel's owner-tid word protocol and hand the lock over. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

enum { kThreads = 3, kIterations = 2000 };
static pthread_mutex_t lock;
static long counter;

static void* work(void* arg) {
  for (int i = 0; i < kIterations; ++i) {
    pthread_mutex_lock(&lock);
    long seen = counter;
    if (i % 25 == 0) sched_yield(); /* others now contend: LOCK_PI blocks */
    counter = seen + 1;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&lock, &attr);
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, work, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  printf("counter %ld (expected %d)\n", counter, kThreads * kIterations);
  return counter == kThreads * kIterations ? 0 : 1;
}
