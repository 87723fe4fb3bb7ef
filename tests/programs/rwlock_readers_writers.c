/* Readers check an invariant that writers keep (a == b) under a rwlock. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

enum { kReaders = 3, kWriters = 2, kIterations = 2000 };
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static long a, b;
static int broken;

static void* reader(void* arg) {
  for (int i = 0; i < kIterations; ++i) {
    pthread_rwlock_rdlock(&lock);
    if (a != b) broken = 1;
    if (i % 50 == 0) sched_yield();
    pthread_rwlock_unlock(&lock);
  }
  return arg;
}

static void* writer(void* arg) {
  for (int i = 0; i < kIterations; ++i) {
    pthread_rwlock_wrlock(&lock);
    ++a;
    if (i % 50 == 0) sched_yield();
    ++b;
    pthread_rwlock_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t threads[kReaders + kWriters];
  for (int i = 0; i < kReaders; ++i) pthread_create(&threads[i], NULL, reader, NULL);
  for (int i = 0; i < kWriters; ++i) pthread_create(&threads[kReaders + i], NULL, writer, NULL);
  for (int i = 0; i < kReaders + kWriters; ++i) pthread_join(threads[i], NULL);
  printf("a=%ld b=%ld invariant %s\n", a, b, broken ? "broken" : "held");
  return !broken && a == (long)kWriters * kIterations ? 0 : 1;
}
