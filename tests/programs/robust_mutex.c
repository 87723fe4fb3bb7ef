/* A thread dies holding a robust mutex; the waiter must get EOWNERDEAD (the kernel's robust-list
 * walk marks the lock, and its wake must reach the waiter), make it consistent and go on. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock;
static pthread_barrier_t holding;

static void* die_holding_lock(void* arg) {
  pthread_mutex_lock(&lock);
  pthread_barrier_wait(&holding);
  usleep(10000); /* let the main thread block on the lock first */
  return arg;    /* exits without unlocking */
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&lock, &attr);
  pthread_barrier_init(&holding, NULL, 2);
  pthread_t owner;
  pthread_create(&owner, NULL, die_holding_lock, NULL);
  pthread_barrier_wait(&holding);
  int rc = pthread_mutex_lock(&lock);
  printf("lock returned %s\n", rc == EOWNERDEAD ? "EOWNERDEAD" : rc == 0 ? "0" : "another error");
  if (rc == EOWNERDEAD) pthread_mutex_consistent(&lock);
  pthread_mutex_unlock(&lock);
  pthread_join(owner, NULL);
  return rc == EOWNERDEAD ? 0 : 1;
}
