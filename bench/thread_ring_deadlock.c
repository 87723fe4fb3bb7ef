/* thread_ring_deadlock N: N threads in a ring, each holding its own mutex and waiting for its
 * neighbour's — a deadlock with N + 1 threads to report (main joins the first). For timing how
 * long a report of many stuck threads takes (their stacks, source lines, the waits-for cycle):
 *   chess-trace run -- bench/thread_ring_deadlock 200 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int count;
static pthread_mutex_t* locks;
static pthread_barrier_t all_hold_one;

static void* hold_mine_then_take_next(void* arg) {
  const long i = (long)arg;
  pthread_mutex_lock(&locks[i]);
  pthread_barrier_wait(&all_hold_one);
  pthread_mutex_lock(&locks[(i + 1) % count]);
  return NULL;
}

int main(int argc, char** argv) {
  count = argc > 1 ? atoi(argv[1]) : 100;
  if (count < 2) return 2;
  locks = calloc((size_t)count, sizeof *locks);
  pthread_t* threads = calloc((size_t)count, sizeof *threads);
  pthread_barrier_init(&all_hold_one, NULL, (unsigned)count);
  for (long i = 0; i < count; ++i) {
    pthread_mutex_init(&locks[i], NULL);
    pthread_create(&threads[i], NULL, hold_mine_then_take_next, (void*)i);
  }
  pthread_join(threads[0], NULL);
  puts("unreachable: the ring deadlocks");
  return 1;
}
