/* two_preemptions_buggy: a save/restore of a shared setting that only strict alternation
 * breaks — a bug that needs two preemptions.
 *
 * Bug: each job raises the process-wide log verbosity for its duration: step 1 saves the
 * current value and installs its own (one critical section), step 2 puts the saved value back
 * (a second critical section). Every access is under settings_lock, and overrides that nest
 * restore correctly — but overrides that cross do not: if job 1 saves, job 2 saves job 1's
 * value, job 1 restores the default and job 2 then "restores" job 1's value, the setting is
 * left at job 1's verbosity for good. main asserts at the end that the default is back
 * (SIGABRT).
 *
 * Schedule that exposes it (2 preemptions): main creates both jobs and blocks in pthread_join;
 * job 1 runs step 1 (saved = 1, verbosity = 2) and is preempted at the pthread_mutex_lock of
 * its step 2 (preemption 1); job 2 runs step 1 (saved = 2, verbosity = 3) and is preempted at
 * the pthread_mutex_lock of its step 2 (preemption 2); job 1 runs step 2 (verbosity = 1) and
 * exits (a free switch); job 2 runs step 2 (verbosity = 2) and exits. main finds 2, not 1.
 * The mirror order (job 2 first) fails the same way.
 *
 * Why one preemption is not enough: the steps fail only in the order A1 B1 A2 B2 (or B1 A1 B2
 * A2). A job never yields, and the only thing it can block on is settings_lock, which is free
 * between steps, so a job that has started gives up the CPU without a preemption only when it
 * exits (or, preempted inside a critical section, when the other job blocks on that lock and
 * hands it straight back, which reorders nothing). So each switch between the jobs in the
 * middle of a job costs a preemption: one preemption can move the other job, whole, into one
 * gap of the preempted job — A1 B1 B2 A2 or B1 A1 A2 B2, both nested, both restore correctly.
 * Crossing needs the CPU taken from job 1 between A1 and A2 and from job 2 between B1 and B2.
 *
 * Fixed twin: two_preemptions_fixed.c (the override, the work and the restore in one critical
 * section per job). */
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

  /* Step 1: install this job's verbosity, remembering what to put back. */
  pthread_mutex_lock(&settings_lock);
  int saved = verbosity;
  verbosity = job->verbosity;
  pthread_mutex_unlock(&settings_lock);

  /* The work itself needs no lock; it is where the other job may get in. */
  long result = 0;
  for (int i = 1; i <= job->input; ++i) result += (long)i * i;
  job->result = result;

  /* Step 2: put back what step 1 saw — correct only if nobody changed it in between, or if
   * whoever did has already put it back (overrides nest). */
  pthread_mutex_lock(&settings_lock);
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
