/* C11 <threads.h>: thrd_create, mtx_t, cnd_t. */
#include <stdio.h>
#include <threads.h>

enum { kThreads = 3, kIterations = 1000 };
static mtx_t lock;
static cnd_t changed;
static int counter, finished;

static int work(void* arg) {
  for (int i = 0; i < kIterations; ++i) {
    mtx_lock(&lock);
    ++counter;
    mtx_unlock(&lock);
  }
  mtx_lock(&lock);
  ++finished;
  cnd_signal(&changed);
  mtx_unlock(&lock);
  return (int)(long)arg;
}

int main(void) {
  mtx_init(&lock, mtx_plain);
  cnd_init(&changed);
  thrd_t threads[kThreads];
  for (long i = 0; i < kThreads; ++i) thrd_create(&threads[i], work, (void*)i);
  mtx_lock(&lock);
  while (finished < kThreads) cnd_wait(&changed, &lock);
  mtx_unlock(&lock);
  int sum = 0;
  for (int i = 0; i < kThreads; ++i) {
    int result;
    thrd_join(threads[i], &result);
    sum += result;
  }
  printf("counter %d, results %d\n", counter, sum);
  return counter == kThreads * kIterations && sum == 3 ? 0 : 1;
}
