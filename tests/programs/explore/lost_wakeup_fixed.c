/* lost_wakeup_fixed: the correct twin of lost_wakeup_buggy.c.
 *
 * The consumer tests `ready` with the mutex held and waits in a loop. The producer can only set
 * `ready` and signal while holding the same mutex, and pthread_cond_wait releases the mutex and
 * starts waiting as one step, so the signal can no longer fall between the test and the wait.
 * The loop also makes a spurious wakeup harmless. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mailbox_filled = PTHREAD_COND_INITIALIZER;
static int ready;   /* guarded by mailbox_lock */
static int message; /* guarded by mailbox_lock */

/* Fifty thousand rounds of FNV-1a stand for real work that takes a while. Kept from the
 * buggy twin, where it hides the race natively, so the twins differ only in the fix. */
static unsigned compose_message(void) {
  unsigned hash = 2166136261u;
  for (unsigned i = 0; i < 50000; ++i) hash = (hash ^ i) * 16777619u;
  return hash;
}

static void* consumer(void* arg) {
  pthread_mutex_lock(&mailbox_lock);
  while (!ready) pthread_cond_wait(&mailbox_filled, &mailbox_lock);
  pthread_mutex_unlock(&mailbox_lock);
  return arg;
}

static void* producer(void* arg) {
  int composed = (int)(compose_message() % 1000);
  pthread_mutex_lock(&mailbox_lock);
  message = composed;
  ready = 1;
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
