/* printed_balance_buggy: the atomicity violation of atomicity_buggy.c, in a program that reports
 * its failure only in its output: it prints the balance, and an ERROR line when the balance is
 * wrong, and exits 0 either way. Judged by its exit status it never fails; each output oracle
 * finds it: --fail-on-output ERROR, --expect-stdout printed_balance.expected, --same-output. Given
 * a path, it writes the balance to that file instead: --same-output --output-file PATH, and
 * --check 'grep -qx "balance 120" PATH' find it there.
 *
 * Bug: deposit and withdraw each read the balance in one critical section and write the new
 * value back in a second one. Schedule that exposes it (1 preemption): a worker is preempted at
 * the pthread_mutex_lock of its write-back while the other runs to its end; the first then
 * writes a value computed from the stale read (150 or 70, not 120).
 *
 * Fixed twin: printed_balance_fixed.c (read and write in one critical section). */
#include <pthread.h>
#include <stdio.h>

enum { kInitialBalance = 100, kDeposit = 50, kWithdrawal = 30 };

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = kInitialBalance; /* guarded by account_lock */

static long read_balance(void) {
  pthread_mutex_lock(&account_lock);
  long value = balance;
  pthread_mutex_unlock(&account_lock);
  return value;
}

static void write_balance(long value) {
  pthread_mutex_lock(&account_lock);
  balance = value;
  pthread_mutex_unlock(&account_lock);
}

static void* deposit(void* arg) {
  long current = read_balance();
  write_balance(current + kDeposit);
  return arg;
}

static void* withdraw(void* arg) {
  long current = read_balance();
  if (current >= kWithdrawal) write_balance(current - kWithdrawal);
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
