/* polite_livelock_fixed: the correct twin of polite_livelock_buggy.c.
 *
 * The same polite code, but both threads take A first. A thread can then hold B only while it
 * also holds A, so whoever holds A finds B free: the trylock never fails, the back-off path is
 * never taken, and a thread that finds A busy blocks in pthread_mutex_lock until the holder is
 * done. Under every schedule both threads finish. (The back-off is now dead code, kept so the
 * lock order is the only difference from the buggy twin.) */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER, lock_b = PTHREAD_MUTEX_INITIALIZER;
static long transfers; /* guarded by lock_a and lock_b together */

struct lock_pair {
  pthread_mutex_t *first, *second;
};

static void* take_both_politely(void* arg) {
  const struct lock_pair* pair = arg;
  for (;;) {
    pthread_mutex_lock(pair->first);
    sched_yield(); /* stands for the work done between the two acquisitions */
    if (pthread_mutex_trylock(pair->second) == 0) break;
    sched_yield();
    pthread_mutex_unlock(pair->first);
    sched_yield();
  }
  ++transfers;
  pthread_mutex_unlock(pair->second);
  pthread_mutex_unlock(pair->first);
  return NULL;
}

int main(void) {
  /* One global order, A before B, for every thread. */
  static struct lock_pair a_then_b = {&lock_a, &lock_b};
  pthread_t first, second;
  pthread_create(&first, NULL, take_both_politely, &a_then_b);
  pthread_create(&second, NULL, take_both_politely, &a_then_b);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  assert(transfers == 2);
  printf("transfers %ld\n", transfers);
  return 0;
}
