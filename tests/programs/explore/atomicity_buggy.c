/* atomicity_buggy: an atomicity violation (lost update) on a bank balance.
 *
 * Bug: deposit and withdraw each read the balance in one critical section and write the new
 * value back in a second one. Every access is under the lock, so there is no data race, but the
 * read-modify-write as a whole is not atomic: whatever the other thread writes between the two
 * critical sections is overwritten with a value computed from the stale read.
 *
 * Schedule that exposes it (1 preemption): main creates both workers and blocks in
 * pthread_join; the depositor reads 100 and releases the lock; it is preempted at the
 * pthread_mutex_lock of its write-back; the withdrawer runs to the end (100 - 30 = 70); the
 * depositor resumes and writes 100 + 50 = 150. main finds 150, not 120: SIGABRT.
 *
 * Without a preemption each worker, once started, runs to its exit: nothing it does can block
 * (the lock is free whenever it asks), so the two updates never interleave. The mirror order
 * (withdrawer preempted, balance 70) fails the same way.
 *
 * Fixed twin: atomicity_fixed.c (read and write in one critical section). */
#include <assert.h>
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
  /* The window: the lock is free here, yet `current` is used as if it still held. */
  write_balance(current + kDeposit);
  return arg;
}

static void* withdraw(void* arg) {
  long current = read_balance();
  if (current >= kWithdrawal) write_balance(current - kWithdrawal);
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
