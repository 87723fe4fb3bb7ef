/* Joined and detached threads, and thread-local storage: each thread sees its own copy. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { kJoined = 4, kDetached = 4 };
static __thread long local_value = 7;
static sem_t detached_done;
static long results[kJoined + kDetached];

static void* record(void* arg) {
  const long me = (long)arg;
  local_value += me * 100;
  results[me] = local_value;
  if (me >= kJoined) sem_post(&detached_done);
  return (void*)(local_value * 2);
}

int main(void) {
  sem_init(&detached_done, 0, 0);
  pthread_t joined[kJoined];
  for (long i = 0; i < kJoined; ++i) pthread_create(&joined[i], NULL, record, (void*)i);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (long i = kJoined; i < kJoined + kDetached; ++i) {
    pthread_t detached;
    pthread_create(&detached, &attr, record, (void*)i);
  }
  int ok = 1;
  for (long i = 0; i < kJoined; ++i) {
    void* returned;
    pthread_join(joined[i], &returned);
    ok &= (long)returned == (7 + i * 100) * 2;
  }
  for (int i = 0; i < kDetached; ++i) sem_wait(&detached_done);
  for (long i = 0; i < kJoined + kDetached; ++i) ok &= results[i] == 7 + i * 100;
  ok &= local_value == 7;
  printf("joined %d, detached %d, thread-local values %s\n", kJoined, kDetached, ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
