/* A condition variable in the style of older glibc and musl: broadcast wakes one waiter and
 * moves the rest onto the mutex's futex with FUTEX_CMP_REQUEUE, so they are woken one at a time
 * by unlocks instead of stampeding. The mutex is the classic three-state futex lock
 * (0 free, 1 locked, 2 locked with waiters). */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kWaiters = 4, kRounds = 50 };

static long futex(atomic_int* word, int op, int val, long val2, atomic_int* word2, int val3) {
  return syscall(SYS_futex, word, op, val, val2, word2, val3);
}

static atomic_int mutex_word;
static void lock(void) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&mutex_word, &expected, 1)) return;
  if (expected != 2) expected = atomic_exchange(&mutex_word, 2);
  while (expected != 0) {
    futex(&mutex_word, FUTEX_WAIT_PRIVATE, 2, 0, NULL, 0);
    expected = atomic_exchange(&mutex_word, 2);
  }
}
static void unlock(void) {
  if (atomic_exchange(&mutex_word, 0) == 2) futex(&mutex_word, FUTEX_WAKE_PRIVATE, 1, 0, NULL, 0);
}

static atomic_int sequence;
static void cond_wait(void) {
  const int seen = atomic_load(&sequence);
  unlock();
  futex(&sequence, FUTEX_WAIT_PRIVATE, seen, 0, NULL, 0);
  /* Requeued waiters come back through the mutex word: they must mark it contended. */
  int expected = atomic_exchange(&mutex_word, 2);
  while (expected != 0) {
    futex(&mutex_word, FUTEX_WAIT_PRIVATE, 2, 0, NULL, 0);
    expected = atomic_exchange(&mutex_word, 2);
  }
}
static long requeued_total;
static void cond_broadcast(void) {
  const int now = atomic_fetch_add(&sequence, 1) + 1;
  const long moved = futex(&sequence, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &mutex_word, now);
  if (moved > 0) requeued_total += moved;
}

static int round_open, arrived, released;

static void* waiter(void* arg) {
  for (int round = 1; round <= kRounds; ++round) {
    lock();
    ++arrived;
    while (round_open < round) cond_wait();
    ++released;
    unlock();
  }
  return arg;
}

int main(void) {
  pthread_t threads[kWaiters];
  for (int i = 0; i < kWaiters; ++i) pthread_create(&threads[i], NULL, waiter, NULL);
  for (int round = 1; round <= kRounds; ++round) {
    for (;;) {  /* wait until every waiter arrived for this round */
      lock();
      const int all_here = arrived == round * kWaiters;
      if (all_here) {
        round_open = round;
        cond_broadcast();
      }
      unlock();
      if (all_here) break;
      usleep(100);
    }
  }
  for (int i = 0; i < kWaiters; ++i) pthread_join(threads[i], NULL);
  printf("%d rounds, %d releases, requeue used: %s\n", kRounds, released, requeued_total > 0 ? "yes" : "no");
  return released == kRounds * kWaiters ? 0 : 1;
}
