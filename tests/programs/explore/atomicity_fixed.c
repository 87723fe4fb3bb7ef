/* atomicity_fixed: the correct twin of atomicity_buggy.c.
 *
 * Each update reads and writes the balance in one critical section, so no other update can
 * slip in between the read and the write: every schedule ends with 100 + 50 - 30 = 120. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kInitialBalance = 100, kDeposit = 50, kWithdrawal = 30 };

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = kInitialBalance; /* guarded by account_lock */

static void* deposit(void* arg) {
  pthread_mutex_lock(&account_lock);
  balance += kDeposit;
  pthread_mutex_unlock(&account_lock);
  return arg;
}

static void* withdraw(void* arg) {
  pthread_mutex_lock(&account_lock);
  /* The check and the update must see the same balance, so both stay inside the lock. */
  if (balance >= kWithdrawal) balance -= kWithdrawal;
  pthread_mutex_unlock(&account_lock);
  return arg;
}

int main(void) {
  pthread_t depositor, withdrawer;
  pthread_create(&depositor, NULL, deposit, NULL);
  pthread_create(&withdrawer, NULL, withdraw, NULL);
  pthread_join(depositor, NULL);
  pthread_join(withdrawer, NULL);
  assert(balance == kInitialBalance + kDeposit - kWithdrawal);
  printf("balance %ld\n", balance);
  return 0;
}
