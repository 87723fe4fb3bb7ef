/* good_samaritan_fixed: the correct twin of good_samaritan_buggy.c.
 *
 * The spinner announces `ready` before it busy-waits, so the helper, once it runs, sets `go`
 * and the spin ends. The spinner still spins without yielding — the helper can only run once
 * the spinner is interrupted (the tester's backstop) or runs on another CPU — but the wait is
 * finite under every fair schedule: it ends as soon as the helper gets one turn. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, go;

static void* spinner(void* arg) {
  atomic_store(&ready, 1);
  while (!atomic_load(&go)) {
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
