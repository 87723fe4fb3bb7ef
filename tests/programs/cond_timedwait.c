/* pthread_cond_timedwait: one wait is signalled long before its far deadline, another times out
 * after 30 ms because nobody signals it; both against CLOCK_REALTIME and CLOCK_MONOTONIC. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t realtime_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t monotonic_cond;
static int signalled;

static struct timespec in(clockid_t clock, long ms) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

static void* signaller(void* arg) {
  pthread_mutex_lock(&lock);
  signalled = 1;
  pthread_cond_signal(&realtime_cond);
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&monotonic_cond, &attr);
  pthread_t thread;
  pthread_mutex_lock(&lock);
  pthread_create(&thread, NULL, signaller, NULL);
  struct timespec far = in(CLOCK_REALTIME, 60000);
  int first = 0;
  while (!signalled && first == 0) first = pthread_cond_timedwait(&realtime_cond, &lock, &far);
  struct timespec soon = in(CLOCK_MONOTONIC, 30);
  int second = pthread_cond_timedwait(&monotonic_cond, &lock, &soon);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  printf("signalled wait: %s, unsignalled wait: %s\n", first == 0 ? "woken" : "timed out",
         second == ETIMEDOUT ? "timed out" : "woken");
  return first == 0 && second == ETIMEDOUT ? 0 : 1;
}
