/* A bounded buffer guarded by POSIX semaphores (empty/full counts) and a mutex. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { kItems = 2000, kCapacity = 3 };
static sem_t empty_slots, full_slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int buffer[kCapacity], in, out;
static long sum;

static void* producer(void* arg) {
  for (int item = 1; item <= kItems; ++item) {
    sem_wait(&empty_slots);
    pthread_mutex_lock(&lock);
    buffer[in] = item;
    in = (in + 1) % kCapacity;
    pthread_mutex_unlock(&lock);
    sem_post(&full_slots);
  }
  return arg;
}

static void* consumer(void* arg) {
  for (int i = 0; i < kItems; ++i) {
    sem_wait(&full_slots);
    pthread_mutex_lock(&lock);
    sum += buffer[out];
    out = (out + 1) % kCapacity;
    pthread_mutex_unlock(&lock);
    sem_post(&empty_slots);
  }
  return arg;
}

int main(void) {
  sem_init(&empty_slots, 0, kCapacity);
  sem_init(&full_slots, 0, 0);
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  printf("sum %ld (expected %ld)\n", sum, (long)kItems * (kItems + 1) / 2);
  return sum == (long)kItems * (kItems + 1) / 2 ? 0 : 1;
}
