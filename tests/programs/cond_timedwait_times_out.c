/* pthread_cond_timedwait that nobody signals: it returns ETIMEDOUT after 50 ms (on
 * CLOCK_REALTIME, then on a CLOCK_MONOTONIC condvar), with the mutex held again, while another
 * thread sits blocked on a semaphore the whole time. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t realtime_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t monotonic_cond;
static sem_t released;

static struct timespec in_50_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  ts.tv_nsec += 50 * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

static long ms_since(clockid_t clock, const struct timespec* start) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

static void* bystander(void* arg) {
  sem_wait(&released);
  return arg;
}

static int wait_until_timeout(pthread_cond_t* cond, clockid_t clock) {
  struct timespec start;
  clock_gettime(clock, &start);
  const struct timespec deadline = in_50_ms(clock);
  int rc;
  do rc = pthread_cond_timedwait(cond, &lock, &deadline);
  while (rc == 0); /* a spurious wake-up: nobody signals these */
  const int relocked = pthread_mutex_trylock(&lock) == EBUSY;
  return rc == ETIMEDOUT && relocked && ms_since(clock, &start) >= 49;
}

int main(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&monotonic_cond, &attr);
  sem_init(&released, 0, 0);
  pthread_t thread;
  pthread_create(&thread, NULL, bystander, NULL);
  pthread_mutex_lock(&lock);
  const int realtime_ok = wait_until_timeout(&realtime_cond, CLOCK_REALTIME);
  const int monotonic_ok = wait_until_timeout(&monotonic_cond, CLOCK_MONOTONIC);
  pthread_mutex_unlock(&lock);
  sem_post(&released);
  pthread_join(thread, NULL);
  printf("realtime wait timed out after 50 ms: %s, monotonic wait timed out after 50 ms: %s\n",
         realtime_ok ? "yes" : "no", monotonic_ok ? "yes" : "no");
  return realtime_ok && monotonic_ok ? 0 : 1;
}
