/* lost_wakeup_buggy: a lost wakeup — the condition is checked outside the mutex.
 *
 * Bug: to skip the lock in the common case, the consumer tests `ready` before taking the mutex
 * and then waits once, unconditionally. If the producer sets `ready` and signals after the test
 * but before the consumer is inside pthread_cond_wait, the signal finds no waiter and is lost;
 * the consumer then waits for a signal that never comes, and main waits in pthread_join for
 * the consumer. The program hangs (deadlock); there is no assertion to fail.
 *
 * Schedule that exposes it (1 preemption): main creates the consumer and the producer and
 * blocks in pthread_join(consumer); the consumer sees ready == 0 and is preempted at its
 * pthread_mutex_lock; the producer runs to its exit (ready = 1, a signal nobody hears); the
 * consumer locks and waits for ever.
 *
 * Without a preemption it works whichever thread starts first: the consumer, once running,
 * goes from its test into pthread_cond_wait without a break (the mutex is free), and waiting
 * is what lets the producer run; a producer that runs first sets `ready` before the test.
 *
 * Fixed twin: lost_wakeup_fixed.c (test the condition under the mutex, in a while loop). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mailbox_filled = PTHREAD_COND_INITIALIZER;
static atomic_int ready;  /* atomic only because the buggy consumer reads it without the lock */
static int message;       /* written under mailbox_lock before `ready` is set */

/* Fifty thousand rounds of FNV-1a stand for real work that takes a while (tens of
 * microseconds). Natively this keeps the race window shut: by the time the message is ready,
 * the consumer is long asleep in its wait. Under the tester it is plain computation, with no
 * scheduling point, so it changes no schedule. */
static unsigned compose_message(void) {
  unsigned hash = 2166136261u;
  for (unsigned i = 0; i < 50000; ++i) hash = (hash ^ i) * 16777619u;
  return hash;
}

static void* consumer(void* arg) {
  /* The "fast path" that loses the wakeup: the test and the wait are not one atomic step. */
  if (!atomic_load(&ready)) {
    pthread_mutex_lock(&mailbox_lock);
    pthread_cond_wait(&mailbox_filled, &mailbox_lock);
    pthread_mutex_unlock(&mailbox_lock);
  }
  return arg;
}

static void* producer(void* arg) {
  int composed = (int)(compose_message() % 1000);
  pthread_mutex_lock(&mailbox_lock);
  message = composed;
  atomic_store(&ready, 1);
  pthread_cond_signal(&mailbox_filled);
  pthread_mutex_unlock(&mailbox_lock);
  return arg;
}

int main(void) {
  pthread_t consumer_thread, producer_thread;
  pthread_create(&consumer_thread, NULL, consumer, NULL);
  pthread_create(&producer_thread, NULL, producer, NULL);
  pthread_join(consumer_thread, NULL);
  pthread_join(producer_thread, NULL);
  printf("message %d\n", message);
  return 0;
}
