/* The main thread joins a worker while holding the lock the worker needs: a deadlock under
 * every schedule. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker_needs_the_lock(void* arg) {
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  return arg;
}

__attribute__((noinline)) static void join_while_holding_the_lock(void) {
  pthread_t worker;
  pthread_mutex_lock(&lock);
  pthread_create(&worker, NULL, worker_needs_the_lock, NULL);
  pthread_join(worker, NULL);
  pthread_mutex_unlock(&lock);
}

int main(void) {
  join_while_holding_the_lock();
  puts("not reached");
  return 0;
}
