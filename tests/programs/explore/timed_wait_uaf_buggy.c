/* timed_wait_uaf_buggy: a request given up on timeout is freed while its worker still uses it —
 * a bug that hides behind timing.
 *
 * Bug: main hands a request to a worker thread and waits for the answer with
 * pthread_cond_timedwait and a 5 s deadline. When the wait times out, main assumes the worker is
 * stuck for good, frees the request and joins the worker to clean up. The worker computes the
 * answer and then writes it into the request: if main gave up first, that is a use after free
 * (the worker asserts the request is alive: SIGABRT).
 *
 * Natively the worker needs microseconds, so the wait never times out and the test passes ten
 * thousand times in a row. Under chess-trace time is virtual and `run` is faithful: a deadline
 * fires only when nothing else can run, so the worker always answers first.
 *
 * Schedule that exposes it (1 preemption): main creates the worker and blocks in
 * pthread_cond_timedwait; the worker could run, but the search fires main's deadline early (a
 * scheduling choice that costs one preemption: "the worker was slow"); main times out, frees the
 * request and joins; the worker runs, finds the request dead and aborts.
 *
 * Fixed twin: timed_wait_uaf_fixed.c (a request given up on is left to the worker, which frees
 * it when it finishes). */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REQUEST_ALIVE 0x4e9e57a1u
#define REQUEST_DEAD 0xdeadbeefu

struct request {
  volatile unsigned magic; /* volatile: the poisoning store before free must stay */
  int input;
  long answer;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answered = PTHREAD_COND_INITIALIZER;
static int done; /* guarded by lock */

static void* worker(void* arg) {
  struct request* request = arg;
  long answer = 0;
  for (int i = 1; i <= request->input; ++i) answer += (long)i * i;
  assert(request->magic == REQUEST_ALIVE);
  request->answer = answer;
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_signal(&answered);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  struct request* request = malloc(sizeof *request);
  if (request == NULL) return 1;
  *request = (struct request){REQUEST_ALIVE, 1000, 0};
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, request) != 0) return 1;

  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 5;
  pthread_mutex_lock(&lock);
  int rc = 0;
  while (!done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&answered, &lock, &deadline);
  const int timed_out = !done;
  pthread_mutex_unlock(&lock);

  if (timed_out) {
    fprintf(stderr, "no answer within 5 s: giving up on the request\n");
    request->magic = REQUEST_DEAD; /* what a destructor leaves behind */
    free(request);
    pthread_join(thread, NULL);
    return 0; /* giving up is a normal, reported outcome */
  }
  pthread_join(thread, NULL);
  printf("answer %ld\n", request->answer);
  free(request);
  return 0;
}
