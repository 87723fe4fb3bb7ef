/* timed_wait_uaf_fixed: the correct twin of timed_wait_uaf_buggy.c. A request main gives up on
 * is marked abandoned under the lock and left to the worker, which frees it when it finishes:
 * whoever is last to hold the request frees it, whatever the timing. Giving up is a normal,
 * reported outcome of the program (it still exits 0): the search fires the deadline early in
 * some schedules and must find nothing wrong. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct request {
  int input;
  long answer;
  int abandoned; /* guarded by lock */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answered = PTHREAD_COND_INITIALIZER;
static int done; /* guarded by lock */

static void* worker(void* arg) {
  struct request* request = arg;
  long answer = 0;
  for (int i = 1; i <= request->input; ++i) answer += (long)i * i;
  pthread_mutex_lock(&lock);
  const int abandoned = request->abandoned;
  if (!abandoned) request->answer = answer;
  done = 1;
  pthread_cond_signal(&answered);
  pthread_mutex_unlock(&lock);
  if (abandoned) free(request); /* main let go of it: the worker is the last user */
  return NULL;
}

int main(void) {
  struct request* request = malloc(sizeof *request);
  if (request == NULL) return 1;
  *request = (struct request){1000, 0, 0};
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, request) != 0) return 1;

  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 5;
  pthread_mutex_lock(&lock);
  int rc = 0;
  while (!done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&answered, &lock, &deadline);
  const int timed_out = !done;
  if (timed_out) request->abandoned = 1;
  pthread_mutex_unlock(&lock);

  if (timed_out) {
    fprintf(stderr, "no answer within 5 s: giving up on the request\n");
    pthread_join(thread, NULL);
    return 0;
  }
  pthread_join(thread, NULL);
  printf("answer %ld\n", request->answer);
  free(request);
  return 0;
}
