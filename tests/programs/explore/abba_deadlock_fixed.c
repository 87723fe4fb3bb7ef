/* abba_deadlock_fixed: the correct twin of abba_deadlock_buggy.c.
 *
 * Every transfer locks the lower-numbered account first, whatever its direction. With one
 * global order, a thread holding its first lock can only ever wait for a lock later in the
 * order, so no cycle of waiters can form and no schedule deadlocks. */
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
  int first = t->from < t->to ? t->from : t->to;
  int second = t->from < t->to ? t->to : t->from;
  pthread_mutex_lock(&account_lock[first]);
  pthread_mutex_lock(&account_lock[second]);
  balance[t->from] -= t->amount;
  balance[t->to] += t->amount;
  pthread_mutex_unlock(&account_lock[second]);
  pthread_mutex_unlock(&account_lock[first]);
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
