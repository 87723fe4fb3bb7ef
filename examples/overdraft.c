/* Two cash machines withdraw from one account at the same time.
 *
 * Each withdrawal checks the balance and then debits it, both under the account's lock — but in
 * two critical sections, so the other withdrawal can slip in between: both see 100, both take
 * 80, and the account ends at -60. There is no data race (every access holds the lock); the bug
 * is an atomicity violation. Natively the window is a few instructions wide and the program
 * passes almost every time. chess-trace finds the schedule in a few executions and explains it:
 *
 *   chess-trace explore -- ./build/examples/overdraft           (finds the bug, exits 1)
 *   chess-trace explore -- ./build/examples/overdraft --fixed   (no bug: every schedule passes)
 *
 * The fix (--fixed): check and debit in one critical section. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { kOpeningBalance = 100, kWithdrawal = 80 };

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = kOpeningBalance;
static int fixed;

static int can_withdraw(long amount) {
  pthread_mutex_lock(&account_lock);
  const int enough = balance >= amount;
  pthread_mutex_unlock(&account_lock);
  return enough;
}

static void debit(long amount) {
  pthread_mutex_lock(&account_lock);
  balance -= amount;
  pthread_mutex_unlock(&account_lock);
}

static void withdraw_checked_then_debited(long amount) {
  if (can_withdraw(amount)) debit(amount); /* the window: the lock is free between the two */
}

static void withdraw_atomically(long amount) {
  pthread_mutex_lock(&account_lock);
  if (balance >= amount) balance -= amount;
  pthread_mutex_unlock(&account_lock);
}

static void* cash_machine(void* arg) {
  if (fixed) {
    withdraw_atomically(kWithdrawal);
  } else {
    withdraw_checked_then_debited(kWithdrawal);
  }
  return arg;
}

int main(int argc, char** argv) {
  fixed = argc > 1 && strcmp(argv[1], "--fixed") == 0;
  pthread_t first, second;
  pthread_create(&first, NULL, cash_machine, NULL);
  pthread_create(&second, NULL, cash_machine, NULL);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("balance: %ld\n", balance);
  assert(balance >= 0 && "the account was overdrawn");
  return 0;
}
