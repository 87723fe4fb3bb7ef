/* polite_livelock_buggy: two polite threads that back off for each other for ever (livelock).
 *
 * Bug: thread 1 wants A then B, thread 2 wants B then A. To avoid the ABBA deadlock, each
 * takes its first lock, tries the second, and on failure releases the first and starts over,
 * yielding at every step to be nice. But the two threads are symmetric: if they move in
 * lockstep, each takes its first lock, each finds the other's lock busy, each backs off, and
 * they start over in the same state — for ever. Neither thread ever blocks, so this is not a
 * deadlock: both stay runnable and keep yielding without making progress.
 *
 * Schedule that exposes it (0 preemptions): every switch is at a sched_yield, which is free.
 * Thread 1 locks A and yields; thread 2 locks B and yields; thread 1's trylock(B) fails and it
 * yields; thread 2's trylock(A) fails and it yields; thread 1 unlocks A and yields; thread 2
 * unlocks B and yields; repeat. This is exactly the round-robin order of a fair scheduler that
 * passes the turn on at each yield (chess-trace's natural schedule does that), so the tester
 * should report a livelock when the execution passes its step limit. Natively the threads
 * usually drift out of step and finish.
 *
 * Fixed twin: polite_livelock_fixed.c (both threads take A first). */
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
    /* Busy: back off so the other thread can finish, and retry. No limit: it will "surely"
     * work next time. */
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
  static struct lock_pair a_then_b = {&lock_a, &lock_b}, b_then_a = {&lock_b, &lock_a};
  pthread_t first, second;
  pthread_create(&first, NULL, take_both_politely, &a_then_b);
  pthread_create(&second, NULL, take_both_politely, &b_then_a);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  assert(transfers == 2);
  printf("transfers %ld\n", transfers);
  return 0;
}
