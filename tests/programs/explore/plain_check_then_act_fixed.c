/* plain_check_then_act_fixed: a one-time job claimed with one compare-and-swap.
 *
 * The test and the set of the flag are one atomic instruction: exactly one worker sees it clear
 * and sets it, whatever the schedule. Correct under every schedule: the twin of
 * plain_check_then_act_buggy.c. (runs is written by the one claiming worker only, and read by
 * main after joining it.)
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int claimed;
static int runs;

static void run_the_job(void) { runs = runs + 1; }

static void* worker(void* arg) {
  int clear = 0;
  if (atomic_compare_exchange_strong(&claimed, &clear, 1)) run_the_job();
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
