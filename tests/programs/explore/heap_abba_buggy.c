/* heap_abba_buggy: the lock-order inversion of abba_deadlock_buggy.c, with heap locks.
 *
 * Bug: each account is a malloc'ed struct with its own mutex, and a transfer locks its source,
 * then its destination. One thread moves money from account 0 to 1, another (after some work of
 * its own, which allocates) from 1 to 0. Heap addresses can move from one schedule to the next
 * (per-thread malloc arenas), so prediction names these locks by where they are taken and
 * recognises them in a directed execution by how the threads' holds chain, not by address. Its
 * report names each heap lock by where it was taken.
 *
 * Schedule that exposes it (1 preemption): the first transfer preempted between its two locks
 * while the second takes its first. Correct twin: abba_deadlock_fixed.c's order (lower account
 * first) — the static-lock twin covers it; this program is about the names. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct account {
  pthread_mutex_t lock;
  long balance;
};

struct transfer {
  struct account* from;
  struct account* to;
  long amount;
  int warm_up;
};

static void* run_transfer(void* arg) {
  const struct transfer* t = arg;
  for (int i = 0; i < t->warm_up; ++i) free(malloc(64 + (size_t)i));
  pthread_mutex_lock(&t->from->lock);
  pthread_mutex_lock(&t->to->lock);
  t->from->balance -= t->amount;
  t->to->balance += t->amount;
  pthread_mutex_unlock(&t->to->lock);
  pthread_mutex_unlock(&t->from->lock);
  return NULL;
}

int main(void) {
  struct account* accounts[2];
  for (int i = 0; i < 2; ++i) {
    accounts[i] = malloc(sizeof *accounts[i]);
    pthread_mutex_init(&accounts[i]->lock, NULL);
    accounts[i]->balance = 100;
  }
  struct transfer forward = {accounts[0], accounts[1], 30, 0}, backward = {accounts[1], accounts[0], 20, 8};
  pthread_t first, second;
  pthread_create(&first, NULL, run_transfer, &forward);
  pthread_create(&second, NULL, run_transfer, &backward);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("balances %ld %ld\n", accounts[0]->balance, accounts[1]->balance);
  return 0;
}
