/* many_points_correct: a correct program with a long execution — more than 120,000 scheduling
 * points (every pthread_mutex_lock and pthread_mutex_unlock is one under the preload shim).
 *
 * Two threads each increment a shared counter 30,000 times, each increment in its own critical
 * section. There is no bug: every schedule ends with 60,000. It is here to measure how the
 * search copes with executions far longer than the bug corpus's few dozen points (trace size,
 * time per execution, the cost of replaying a long prefix). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 2, kIterations = 30000 };

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter; /* guarded by counter_lock */

static void* increment_many_times(void* arg) {
  for (int i = 0; i < kIterations; ++i) {
    pthread_mutex_lock(&counter_lock);
    ++counter;
    pthread_mutex_unlock(&counter_lock);
  }
  return arg;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, increment_many_times, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  assert(counter == (long)kThreads * kIterations);
  printf("counter %ld\n", counter);
  return 0;
}
