// A small two-thread program for the search's executions per second: two threads take turns
// on one mutex a few times. Its schedule space within 2 preemptions has a few hundred schedules.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void* work(void* arg) {
  for (int i = 0; i < 3; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, work, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  if (counter != 6) abort();
  return 0;
}
