/* late_reader_buggy [WRITERS]: WRITERS threads (default 9) each record an entry under a lock; a
 * reader, created after them, takes the lock and uses the entries recorded so far — assuming
 * some writer has recorded one by then, which is true in every native run (the writers start
 * first and each needs a microsecond).
 *
 * Bug: the reader runs before any writer completes, finds no entry, and aborts (SIGABRT). It
 * takes one choice: main, blocked in pthread_join, lets the reader run first (no preemption), or
 * main is preempted right after creating it (one).
 *
 * What it is for: with many threads the one choice is among many — the reader is one of WRITERS
 * + 1 threads that could run, the last in creation order — which is where strategies differ:
 * preemption bounding finds it only after the other orders its depth-first round 0 takes first,
 * PCT when the reader draws the highest priority, delay bounding after skipping every writer
 * (bench/run_benchmarks.py --only strategies measures them).
 *
 * Fixed twin: late_reader_fixed.c (the reader waits on a condition variable for an entry). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxWriters = 255 };

static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;
static int entries; /* guarded by entries_lock */

static void* writer(void* arg) {
  pthread_mutex_lock(&entries_lock);
  ++entries;
  pthread_mutex_unlock(&entries_lock);
  return arg;
}

static void* reader(void* arg) {
  pthread_mutex_lock(&entries_lock);
  const int seen = entries;
  pthread_mutex_unlock(&entries_lock);
  /* The assumption: some writer has recorded an entry by now. */
  assert(seen > 0);
  return arg;
}

int main(int argc, char** argv) {
  const int writers = argc > 1 ? atoi(argv[1]) : 9;
  if (writers < 1 || writers > kMaxWriters) {
    fprintf(stderr, "usage: late_reader_buggy [WRITERS 1..%d]\n", kMaxWriters);
    return 2;
  }
  pthread_t threads[kMaxWriters + 1];
  for (int i = 0; i < writers; ++i) pthread_create(&threads[i], NULL, writer, NULL);
  pthread_create(&threads[writers], NULL, reader, NULL);
  for (int i = 0; i <= writers; ++i) pthread_join(threads[i], NULL);
  printf("entries %d\n", entries);
  return 0;
}
