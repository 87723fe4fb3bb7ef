/* A start gate released with pthread_cond_broadcast, then a bounded queue with one producer and
 * three consumers on two condition variables. */
#include <pthread.h>
#include <stdio.h>

enum { kConsumers = 3, kItems = 3000, kCapacity = 4 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER,
                      not_empty = PTHREAD_COND_INITIALIZER;
static int open_gate, queue[kCapacity], head, count, done;
static long consumed_sum, consumed_count;

static void* consumer(void* arg) {
  pthread_mutex_lock(&lock);
  while (!open_gate) pthread_cond_wait(&gate, &lock);
  for (;;) {
    while (count == 0 && !done) pthread_cond_wait(&not_empty, &lock);
    if (count == 0 && done) break;
    int item = queue[head];
    head = (head + 1) % kCapacity;
    --count;
    consumed_sum += item;
    ++consumed_count;
    pthread_cond_signal(&not_full);
  }
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t consumers[kConsumers];
  for (int i = 0; i < kConsumers; ++i) pthread_create(&consumers[i], NULL, consumer, NULL);
  pthread_mutex_lock(&lock);
  open_gate = 1;
  pthread_cond_broadcast(&gate);
  for (int item = 1; item <= kItems; ++item) {
    while (count == kCapacity) pthread_cond_wait(&not_full, &lock);
    queue[(head + count) % kCapacity] = item;
    ++count;
    pthread_cond_signal(&not_empty);
  }
  done = 1;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < kConsumers; ++i) pthread_join(consumers[i], NULL);
  const long expected = (long)kItems * (kItems + 1) / 2;
  printf("consumed %ld items summing to %ld (expected %ld)\n", consumed_count, consumed_sum, expected);
  return consumed_sum == expected && consumed_count == kItems ? 0 : 1;
}
