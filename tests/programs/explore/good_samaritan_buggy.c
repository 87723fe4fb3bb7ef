/* good_samaritan_buggy: a thread spins for ever without yielding while the thread that could
 * release it keeps yielding (a good-samaritan violation, CHESS's name for it).
 *
 * Bug: a two-flag handshake. The helper waits, yielding politely, until the spinner says it is
 * `ready`, then sets `go`. The spinner is meant to announce `ready` and then busy-wait for
 * `go` — but it forgets the announcement. So the spinner busy-waits for ever on a flag that is
 * never set, with no syscall and no yield in its loop, while the helper stays runnable and
 * yields for ever waiting for `ready`. Neither thread blocks: not a deadlock, but no progress.
 *
 * Schedule that exposes it (0 preemptions): every schedule. The program never terminates,
 * natively either. Under the tester the spinner runs until the backstop interrupts it (a whole
 * slice without a scheduling point); the helper then only ever yields. A fair tester should
 * report a thread that runs without yielding while another enabled thread waits for it.
 *
 * Fixed twin: good_samaritan_fixed.c (the spinner sets `ready` before it spins). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, go;

static void* spinner(void* arg) {
  /* Missing: atomic_store(&ready, 1); */
  while (!atomic_load(&go)) {
    /* A plain busy loop: no pause, no yield, no syscall. */
  }
  return arg;
}

static void* helper(void* arg) {
  while (!atomic_load(&ready)) sched_yield();
  atomic_store(&go, 1);
  return arg;
}

int main(void) {
  pthread_t spinner_thread, helper_thread;
  pthread_create(&spinner_thread, NULL, spinner, NULL);
  pthread_create(&helper_thread, NULL, helper, NULL);
  pthread_join(spinner_thread, NULL);
  pthread_join(helper_thread, NULL);
  puts("handshake done");
  return 0;
}
