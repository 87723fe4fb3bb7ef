/* Thread-local storage: __thread and _Thread_local variables start from their initial value in
 * every thread, and one thread's writes are invisible to the others. */
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 5, kIterations = 1000 };
static __thread long gnu_local = 7;
static _Thread_local int c11_local[4] = {1, 2, 3, 4};
static pthread_barrier_t all_wrote;
static int wrong;

static void* use_thread_locals(void* arg) {
  const long me = (long)arg;
  if (gnu_local != 7 || c11_local[3] != 4) __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < kIterations; ++i) gnu_local += me;
  c11_local[0] = (int)me;
  pthread_barrier_wait(&all_wrote); /* every thread has written before anyone checks */
  if (gnu_local != 7 + me * kIterations || c11_local[0] != me) __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
  return (void*)gnu_local;
}

int main(void) {
  pthread_barrier_init(&all_wrote, NULL, kThreads);
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, use_thread_locals, (void*)(i + 1));
  long sum = 0;
  for (int i = 0; i < kThreads; ++i) {
    void* result;
    pthread_join(threads[i], &result);
    sum += (long)result;
  }
  if (gnu_local != 7 || c11_local[0] != 1) ++wrong;
  printf("sum of thread-local results %ld, %d wrong values\n", sum, wrong);
  return wrong == 0 && sum == kThreads * 7 + 15 * kIterations ? 0 : 1;
}
