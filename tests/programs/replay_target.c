/* A program to replay against a changed version of itself: given the argument `changed`, each
 * worker yields once more halfway, so its schedule no longer fits a trace recorded without it
 * and the replay must say where it left the recording. The output is the same either way. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int changed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 200; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
    if (i % 50 == 0) sched_yield();
    if (changed && i == 100) sched_yield();
  }
  return NULL;
}

int main(int argc, char** argv) {
  changed = argc > 1 && strcmp(argv[1], "changed") == 0;
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) {
    if (pthread_create(&threads[i], NULL, worker, NULL) != 0) return 2;
  }
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("counter %ld\n", counter);
  return counter == 400 ? 0 : 1;
}
