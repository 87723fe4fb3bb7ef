/* Two threads take two locks in opposite orders; a barrier between the first and the second
 * acquisition makes both hold one lock before asking for the other: a deadlock under every
 * schedule. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER, lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;

static void* worker_takes_a_then_b(void* arg) {
  pthread_mutex_lock(&lock_a);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&lock_b);
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return arg;
}

static void* worker_takes_b_then_a(void* arg) {
  pthread_mutex_lock(&lock_b);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&lock_a);
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return arg;
}

int main(void) {
  pthread_barrier_init(&both_hold_one, NULL, 2);
  pthread_t first, second;
  pthread_create(&first, NULL, worker_takes_a_then_b, NULL);
  pthread_create(&second, NULL, worker_takes_b_then_a, NULL);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  puts("not reached");
  return 0;
}
