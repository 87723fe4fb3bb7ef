/* pthread_cond_timedwait with deadlines a minute away, on CLOCK_REALTIME and on a
 * CLOCK_MONOTONIC condvar: both are signalled long before their deadline. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t realtime_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t monotonic_cond;
static int stage;

static struct timespec one_minute_from_now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  ts.tv_sec += 60;
  return ts;
}

static void* signaller(void* arg) {
  pthread_mutex_lock(&lock);
  stage = 1;
  pthread_cond_signal(&realtime_cond);
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  while (stage != 2) pthread_cond_wait(&realtime_cond, &lock);
  stage = 3;
  pthread_cond_broadcast(&monotonic_cond);
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&monotonic_cond, &attr);
  pthread_t thread;
  pthread_mutex_lock(&lock); /* held before the signaller exists: it cannot signal too early */
  pthread_create(&thread, NULL, signaller, NULL);
  int realtime_rc = 0, monotonic_rc = 0;
  const struct timespec realtime_deadline = one_minute_from_now(CLOCK_REALTIME);
  while (stage != 1 && realtime_rc == 0)
    realtime_rc = pthread_cond_timedwait(&realtime_cond, &lock, &realtime_deadline);
  stage = 2;
  pthread_cond_signal(&realtime_cond);
  const struct timespec monotonic_deadline = one_minute_from_now(CLOCK_MONOTONIC);
  while (stage != 3 && monotonic_rc == 0)
    monotonic_rc = pthread_cond_timedwait(&monotonic_cond, &lock, &monotonic_deadline);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  printf("realtime wait: %s, monotonic wait: %s\n", realtime_rc == 0 ? "signalled" : "timed out",
         monotonic_rc == 0 ? "signalled" : "timed out");
  return realtime_rc == 0 && monotonic_rc == 0 ? 0 : 1;
}
