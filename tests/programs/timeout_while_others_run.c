/* A 50 ms pthread_cond_timedwait that nobody signals must still time out while other threads
 * never block: one polls a flag with sched_yield, one spins on it without any syscall. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static atomic_int done;

static void* poll_with_yield(void* arg) {
  while (!atomic_load_explicit(&done, memory_order_relaxed)) sched_yield();
  return arg;
}

static void* spin_without_syscalls(void* arg) {
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
  }
  return arg;
}

int main(void) {
  pthread_t yielder, spinner;
  pthread_create(&yielder, NULL, poll_with_yield, NULL);
  pthread_create(&spinner, NULL, spin_without_syscalls, NULL);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 50 * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&lock);
  int rc;
  do rc = pthread_cond_timedwait(&never_signalled, &lock, &deadline);
  while (rc == 0);
  pthread_mutex_unlock(&lock);
  atomic_store(&done, 1);
  pthread_join(yielder, NULL);
  pthread_join(spinner, NULL);
  printf("the wait %s while the others ran\n", rc == ETIMEDOUT ? "timed out" : "failed");
  return rc == ETIMEDOUT ? 0 : 1;
}
