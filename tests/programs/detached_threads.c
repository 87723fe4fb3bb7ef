/* Detached threads are never joined: each signals its completion through a POSIX semaphore
 * and the main thread waits for all of them before reading their results. Half are created
 * detached, the other half start joinable and detach themselves. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { kThreads = 8 };
static sem_t finished;
static long results[kThreads];

static void* detached_worker(void* arg) {
  const long me = (long)arg;
  if (me % 2 == 1) pthread_detach(pthread_self());
  results[me] = me * 10;
  sem_post(&finished);
  return NULL;
}

int main(void) {
  sem_init(&finished, 0, 0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (long i = 0; i < kThreads; ++i) {
    pthread_t thread;
    if (pthread_create(&thread, i % 2 == 0 ? &attr : NULL, detached_worker, (void*)i) != 0) return 2;
  }
  for (int i = 0; i < kThreads; ++i) sem_wait(&finished);
  long sum = 0;
  for (int i = 0; i < kThreads; ++i) sum += results[i];
  printf("%d detached threads finished, sum %ld\n", kThreads, sum);
  return sum == 280 ? 0 : 1;
}
