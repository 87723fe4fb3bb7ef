/* two_preemptions_fixed: the correct twin of two_preemptions_buggy.c.
 *
 * Same save/restore protocol, but each job holds settings_lock from the save through its work
 * to the restore, so no other job can install its own verbosity in between: overrides can no
 * longer cross, and the default is back at the end under every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kDefaultVerbosity = 1 };

static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static int verbosity = kDefaultVerbosity; /* guarded by settings_lock */

struct job {
  int verbosity;
  int input;
  long result;
};

static void* run_job(void* arg) {
  struct job* job = arg;

  pthread_mutex_lock(&settings_lock);
  int saved = verbosity;
  verbosity = job->verbosity;

  long result = 0;
  for (int i = 1; i <= job->input; ++i) result += (long)i * i;
  job->result = result;

  verbosity = saved;
  pthread_mutex_unlock(&settings_lock);
  return NULL;
}

int main(void) {
  static struct job first = {2, 10, 0}, second = {3, 20, 0};
  pthread_t first_thread, second_thread;
  pthread_create(&first_thread, NULL, run_job, &first);
  pthread_create(&second_thread, NULL, run_job, &second);
  pthread_join(first_thread, NULL);
  pthread_join(second_thread, NULL);
  assert(verbosity == kDefaultVerbosity);
  printf("results %ld %ld, verbosity %d\n", first.result, second.result, verbosity);
  return 0;
}
