/* A small bank: worker threads move money between accounts under per-account mutexes and a
 * condition variable gates the start. The total never changes; chess-trace run shows the
 * program behaving exactly as it does natively, one thread at a time.
 *
 *   chess-trace run -- ./build/examples/bank_transfer
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kAccounts = 8, kWorkers = 4, kTransfers = 2000 };

static long balance[kAccounts];
static pthread_mutex_t account_lock[kAccounts];
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_signal = PTHREAD_COND_INITIALIZER;
static int started;

static void transfer(int from, int to, long amount) {
  /* Lock in index order so two opposite transfers cannot deadlock. */
  int first = from < to ? from : to, second = from < to ? to : from;
  pthread_mutex_lock(&account_lock[first]);
  pthread_mutex_lock(&account_lock[second]);
  balance[from] -= amount;
  balance[to] += amount;
  pthread_mutex_unlock(&account_lock[second]);
  pthread_mutex_unlock(&account_lock[first]);
}

static void* worker(void* arg) {
  unsigned seed = (unsigned)(long)arg;
  pthread_mutex_lock(&start_lock);
  while (!started) pthread_cond_wait(&start_signal, &start_lock);
  pthread_mutex_unlock(&start_lock);
  for (int i = 0; i < kTransfers; ++i) {
    int from = rand_r(&seed) % kAccounts, to = rand_r(&seed) % kAccounts;
    if (from != to) transfer(from, to, rand_r(&seed) % 50);
  }
  return NULL;
}

int main(void) {
  pthread_t workers[kWorkers];
  for (int i = 0; i < kAccounts; ++i) {
    balance[i] = 1000;
    pthread_mutex_init(&account_lock[i], NULL);
  }
  for (long i = 0; i < kWorkers; ++i) pthread_create(&workers[i], NULL, worker, (void*)(i + 1));
  pthread_mutex_lock(&start_lock);
  started = 1;
  pthread_cond_broadcast(&start_signal);
  pthread_mutex_unlock(&start_lock);
  for (int i = 0; i < kWorkers; ++i) pthread_join(workers[i], NULL);
  long total = 0;
  for (int i = 0; i < kAccounts; ++i) total += balance[i];
  printf("%d workers made %d transfers each; total balance %ld (expected %d)\n", kWorkers,
         kTransfers, total, kAccounts * 1000);
  return total == kAccounts * 1000 ? 0 : 1;
}
