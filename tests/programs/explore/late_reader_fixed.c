/* late_reader_fixed [WRITERS]: late_reader_buggy whose reader waits on a condition variable until
 * a writer has recorded an entry: correct under every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxWriters = 255 };

static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t entry_recorded = PTHREAD_COND_INITIALIZER;
static int entries; /* guarded by entries_lock */

static void* writer(void* arg) {
  pthread_mutex_lock(&entries_lock);
  ++entries;
  pthread_cond_signal(&entry_recorded);
  pthread_mutex_unlock(&entries_lock);
  return arg;
}

static void* reader(void* arg) {
  pthread_mutex_lock(&entries_lock);
  while (entries == 0) pthread_cond_wait(&entry_recorded, &entries_lock);
  const int seen = entries;
  pthread_mutex_unlock(&entries_lock);
  assert(seen > 0);
  return arg;
}

int main(int argc, char** argv) {
  const int writers = argc > 1 ? atoi(argv[1]) : 9;
  if (writers < 1 || writers > kMaxWriters) {
    fprintf(stderr, "usage: late_reader_fixed [WRITERS 1..%d]\n", kMaxWriters);
    return 2;
  }
  pthread_t threads[kMaxWriters + 1];
  for (int i = 0; i < writers; ++i) pthread_create(&threads[i], NULL, writer, NULL);
  pthread_create(&threads[writers], NULL, reader, NULL);
  for (int i = 0; i <= writers; ++i) pthread_join(threads[i], NULL);
  printf("entries %d\n", entries);
  return 0;
}
