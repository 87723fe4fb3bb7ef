/* abba_deadlock_buggy: a lock-order inversion (ABBA deadlock) between two transfers.
 *
 * Bug: a transfer locks the source account, then the destination. Thread 1 moves money from
 * account 0 to account 1 (locks A = account 0, then B = account 1); thread 2 moves money the
 * other way (locks B, then A). If each holds its first lock when it asks for its second, both
 * wait for ever. The program hangs; there is no assertion to fail.
 *
 * Schedule that exposes it (1 preemption): main creates both threads and blocks in
 * pthread_join; thread 1 locks A and is preempted at its pthread_mutex_lock(B); thread 2 locks
 * B and blocks on A (a free switch back); thread 1 blocks on B. No thread can run: deadlock.
 *
 * Without a preemption a thread that has started keeps running until it exits, because it
 * only ever asks for free locks; the other thread then finds both locks free.
 *
 * Fixed twin: abba_deadlock_fixed.c (every transfer locks the lower-numbered account first). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kAccounts = 2, kInitialBalance = 100 };

static pthread_mutex_t account_lock[kAccounts] = {PTHREAD_MUTEX_INITIALIZER,
                                                  PTHREAD_MUTEX_INITIALIZER};
static long balance[kAccounts] = {kInitialBalance, kInitialBalance};

struct transfer {
  int from, to;
  long amount;
};

static void* run_transfer(void* arg) {
  const struct transfer* t = arg;
  /* The order depends on the direction of the transfer: that is the inversion. */
  pthread_mutex_lock(&account_lock[t->from]);
  pthread_mutex_lock(&account_lock[t->to]);
  balance[t->from] -= t->amount;
  balance[t->to] += t->amount;
  pthread_mutex_unlock(&account_lock[t->to]);
  pthread_mutex_unlock(&account_lock[t->from]);
  return NULL;
}

int main(void) {
  static struct transfer zero_to_one = {0, 1, 30}, one_to_zero = {1, 0, 20};
  pthread_t first, second;
  pthread_create(&first, NULL, run_transfer, &zero_to_one);
  pthread_create(&second, NULL, run_transfer, &one_to_zero);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  assert(balance[0] + balance[1] == kAccounts * kInitialBalance);
  printf("balances %ld %ld\n", balance[0], balance[1]);
  return 0;
}
