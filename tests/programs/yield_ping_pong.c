/* Two threads hand a turn back and forth through an atomic, waiting with sched_yield: it ends
 * only if a yield lets the other thread run. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

enum { kRounds = 500 };
static atomic_int turn;
static atomic_long hits;

static void* pong(void* arg) {
  for (int i = 0; i < kRounds; ++i) {
    while (atomic_load(&turn) != 1) sched_yield();
    atomic_fetch_add(&hits, 1);
    atomic_store(&turn, 0);
  }
  return arg;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, pong, NULL);
  for (int i = 0; i < kRounds; ++i) {
    while (atomic_load(&turn) != 0) sched_yield();
    atomic_fetch_add(&hits, 1);
    atomic_store(&turn, 1);
  }
  while (atomic_load(&turn) != 0) sched_yield();
  pthread_join(thread, NULL);
  printf("%ld hand-offs\n", (long)atomic_load(&hits));
  return atomic_load(&hits) == 2 * kRounds ? 0 : 1;
}
