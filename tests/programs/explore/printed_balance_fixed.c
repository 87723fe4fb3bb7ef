/* printed_balance_fixed: the correct twin of printed_balance_buggy.c. Each update reads and
 * writes the balance in one critical section, so every schedule prints `balance 120` and no
 * ERROR line: no output oracle may flag it. */
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
  const long expected = kInitialBalance + kDeposit - kWithdrawal;
  printf("balance %ld\n", balance);
  if (balance != expected) fprintf(stderr, "ERROR: lost an update: balance %ld, expected %ld\n", balance, expected);
  return 0;
}
