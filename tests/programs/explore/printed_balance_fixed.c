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

int main(int argc, char** argv) {
  pthread_t depositor, withdrawer;
  pthread_create(&depositor, NULL, deposit, NULL);
  pthread_create(&withdrawer, NULL, withdraw, NULL);
  pthread_join(depositor, NULL);
  pthread_join(withdrawer, NULL);
  const long expected = kInitialBalance + kDeposit - kWithdrawal;
  /* With a path: the balance goes to that file (the --output-file and --check oracles). */
  FILE* out = argc > 1 ? fopen(argv[1], "w") : stdout;
  if (out == NULL) return 2;
  fprintf(out, "balance %ld\n", balance);
  if (out != stdout) fclose(out);
  if (balance != expected) fprintf(stderr, "ERROR: lost an update: balance %ld, expected %ld\n", balance, expected);
  return 0;
}
