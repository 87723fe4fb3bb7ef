/* sandboxed_threads: a correct program that sandboxes itself while its threads run.
 *
 * A producer and a consumer pass numbers through a bounded queue (a mutex and two condition
 * variables). Once the consumer has taken ten, main installs a default-kill seccomp filter on
 * every thread of the process (SECCOMP_FILTER_FLAG_TSYNC), starts a second producer under it,
 * and joins them all. The sum the consumer prints does not depend on the schedule.
 *
 * Under chess-trace every lock and condition-variable operation is a scheduling point, which
 * the preload shim announces: before the filter by a system call, after it by a trap the filter
 * never sees. A system call of the shim's after the filter would kill the program. */
#include <pthread.h>
#include <stdio.h>

#include "sandbox_filter.h"

enum { kPerProducer = 100, kCapacity = 4 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t progress = PTHREAD_COND_INITIALIZER;
static int queue[kCapacity]; /* guarded by lock, as are the three below */
static int head, count, taken;
static long sum;

static void* produce(void* first) {
  for (int i = 0; i < kPerProducer; ++i) {
    pthread_mutex_lock(&lock);
    while (count == kCapacity) pthread_cond_wait(&not_full, &lock);
    queue[(head + count++) % kCapacity] = (int)(long)first + i;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void* consume(void* arg) {
  for (int i = 0; i < 2 * kPerProducer; ++i) {
    pthread_mutex_lock(&lock);
    while (count == 0) pthread_cond_wait(&not_empty, &lock);
    sum += queue[head];
    head = (head + 1) % kCapacity;
    --count;
    ++taken;
    pthread_cond_signal(&not_full);
    pthread_cond_broadcast(&progress);
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t consumer, early, late;
  pthread_create(&consumer, NULL, consume, NULL);
  pthread_create(&early, NULL, produce, (void*)1L);
  pthread_mutex_lock(&lock);
  while (taken < 10) pthread_cond_wait(&progress, &lock);
  pthread_mutex_unlock(&lock);
  install_sandbox(SANDBOX_SECCOMP_TSYNC);
  pthread_create(&late, NULL, produce, (void*)(1L + kPerProducer));
  pthread_join(early, NULL);
  pthread_join(late, NULL);
  pthread_join(consumer, NULL);
  printf("sum %ld (expected %d)\n", sum, kPerProducer * (2 * kPerProducer + 1));
  return sum == kPerProducer * (2 * kPerProducer + 1) ? 0 : 1;
}
