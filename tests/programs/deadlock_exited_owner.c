/* deadlock_exited_owner: a thread locks a mutex and returns without unlocking it; main then
 * locks the mutex and waits for ever (natively too). Nothing is left that could unlock it: the
 * owner is gone. glibc's mutex keeps its owner's tid, and chess-trace knows which thread had
 * that tid, so the report names the thread that exited holding the lock. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;

static void* forgetful_writer(void* arg) {
  pthread_mutex_lock(&ledger_lock);
  /* The early return that forgets to unlock. */
  return arg;
}

int main(void) {
  pthread_t writer;
  pthread_create(&writer, NULL, forgetful_writer, NULL);
  pthread_join(writer, NULL);
  pthread_mutex_lock(&ledger_lock);
  puts("the ledger is ours");
  pthread_mutex_unlock(&ledger_lock);
  return 0;
}
