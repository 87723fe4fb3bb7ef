/* plain_check_then_act_buggy: a check-then-act on a plain int, a data race.
 *
 * Bug: two threads each claim a one-time job by testing a flag and then setting it, with plain
 * loads and stores: no lock, no atomic, no syscall between the test and the set. Both can see
 * the flag clear and both run the job, which must run once.
 *
 * Schedule that exposes it (1 preemption): the first worker reads `claimed` == 0 and is
 * preempted before its store; the second reads 0 too, claims the job and runs it; the first
 * resumes, stores 1 and runs the job again. main finds it run twice: SIGABRT.
 *
 * The only places the search could switch threads in the window are the racing accesses
 * themselves (the load of `claimed` and the store to it), which are no scheduling point unless
 * races are detected. Without a preemption the first worker runs to its exit.
 *
 * Fixed twin: plain_check_then_act_fixed.c (one compare-and-swap claims the job). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

/* volatile: the compiler keeps each access where the source has it (the race is the point). */
static volatile int claimed;
static volatile int runs;

static void run_the_job(void) { runs = runs + 1; }

static void* worker(void* arg) {
  if (!claimed) {
    /* The window: another worker may test the flag here and find it clear too. */
    claimed = 1;
    run_the_job();
  }
  return arg;
}

int main(void) {
  pthread_t workers[2];
  for (int i = 0; i < 2; ++i) pthread_create(&workers[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(workers[i], NULL);
  assert(runs == 1 && "the one-time job ran twice");
  printf("the job ran once\n");
  return 0;
}
