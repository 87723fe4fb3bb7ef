/* Four threads meet at a barrier every round; each round's writes are all visible after it. */
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 4, kRounds = 20 };
static pthread_barrier_t barrier;
static int slots[kThreads];
static int failures;

static void* participant(void* arg) {
  const int me = (int)(long)arg;
  for (int round = 1; round <= kRounds; ++round) {
    slots[me] = round;
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < kThreads; ++i) {
      if (slots[i] != round) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    }
    pthread_barrier_wait(&barrier);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  pthread_barrier_init(&barrier, NULL, kThreads);
  for (long i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, participant, (void*)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  printf("%d rounds, %d failures\n", kRounds, failures);
  return failures == 0 ? 0 : 1;
}
