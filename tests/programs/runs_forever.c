/* Threads that never finish (and a main thread that ignores SIGTERM): for the tests that stop
 * or kill chess-trace and then look for survivors. argv[1] is a marker the tests search for. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* churn(void* arg) {
  for (;;) {
    pthread_mutex_lock(&lock);
    usleep(500);
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  signal(SIGTERM, SIG_IGN);
  pthread_t threads[3];
  for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, churn, NULL);
  for (;;) pause();
}
