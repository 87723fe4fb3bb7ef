/* yield_barrier_fixed [THREADS]: yield_barrier_buggy with the update made in one critical section:
 * correct under every schedule. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 256 };

static int thread_count = 8;
static atomic_int arrived;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static long total; /* guarded by total_lock */

static void* worker(void* arg) {
  const long index = (long)arg;
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < thread_count) sched_yield();
  if (index < 2) {
    pthread_mutex_lock(&total_lock);
    total += index + 1;
    pthread_mutex_unlock(&total_lock);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) thread_count = atoi(argv[1]);
  if (thread_count < 2 || thread_count > kMaxThreads) {
    fprintf(stderr, "usage: yield_barrier_fixed [THREADS 2..%d]\n", kMaxThreads);
    return 2;
  }
  pthread_t threads[kMaxThreads];
  for (long i = 0; i < thread_count; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int i = 0; i < thread_count; ++i) pthread_join(threads[i], NULL);
  printf("total %ld\n", total);
  assert(total == 3);
  return 0;
}
