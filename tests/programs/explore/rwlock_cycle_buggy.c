/* rwlock_cycle_buggy: a deadlock through a read-write lock: a reader waiting for a writer.
 *
 * Bug: the writer takes the table's rwlock for writing, then the log mutex (to log the change).
 * The reader takes the log mutex, then the table's rwlock for reading (to log a lookup). A read
 * lock waits for a write hold whatever the lock's kind, so if the writer holds the rwlock when
 * the reader holds the mutex, each waits for the other. Natively, and non-preemptively, one is
 * done before the other starts. The first execution shows the two dependencies; prediction
 * confirms the cycle.
 *
 * Fixed twin: rwlock_cycle_fixed.c (the reader takes the rwlock before the mutex, as the writer
 * does). */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int table[4];
static int log_lines;

static void* writer(void* arg) {
  (void)arg;
  pthread_rwlock_wrlock(&table_lock);
  table[1] = 42;
  pthread_mutex_lock(&log_lock);
  ++log_lines;
  pthread_mutex_unlock(&log_lock);
  pthread_rwlock_unlock(&table_lock);
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
#ifdef CONSISTENT_ORDER
  pthread_rwlock_rdlock(&table_lock);
  pthread_mutex_lock(&log_lock);
#else
  pthread_mutex_lock(&log_lock);
  pthread_rwlock_rdlock(&table_lock); /* a read under the mutex: the inversion */
#endif
  ++log_lines;
  int seen = table[1];
  (void)seen;
  pthread_rwlock_unlock(&table_lock);
  pthread_mutex_unlock(&log_lock);
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, writer, NULL);
  pthread_create(&threads[1], NULL, reader, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("log lines %d\n", log_lines);
  return 0;
}
