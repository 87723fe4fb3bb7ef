/* three_lock_cycle_buggy: a deadlock cycle through three locks and three threads.
 *
 * Bug: thread 1 takes A then B, thread 2 B then C, thread 3 C then A. No two of them invert an
 * order — every pair of threads is fine — but if each holds its first lock when it asks for its
 * second, the three wait in a ring. Natively, and in the non-preemptive schedule, each thread
 * runs through both locks before the next starts. The first execution's relation has the three
 * dependencies A→B, B→C, C→A: iGoodlock closes them into one cycle of length 3, and a directed
 * execution pauses each thread at its second lock until all three are there.
 *
 * Schedule that exposes it (2 preemptions): thread 1 preempted after A, thread 2 after B,
 * thread 3 takes C and blocks on A. No twin of its own: late_inversion_fixed.c and
 * late_inversion_gated.c are the correct programs prediction must leave alone. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t locks[3] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                   PTHREAD_MUTEX_INITIALIZER};
static long moved[3];

static void* step(void* arg) {
  const int i = (int)(long)arg;
  pthread_mutex_lock(&locks[i]);
  pthread_mutex_lock(&locks[(i + 1) % 3]);
  ++moved[i];
  pthread_mutex_unlock(&locks[(i + 1) % 3]);
  pthread_mutex_unlock(&locks[i]);
  return NULL;
}

int main(void) {
  pthread_t threads[3];
  for (long i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, step, (void*)i);
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  printf("moved %ld %ld %ld\n", moved[0], moved[1], moved[2]);
  return 0;
}
