/* order_violation_buggy: an order violation — a worker uses the configuration before main has
 * published it.
 *
 * Bug: main starts the worker first and publishes the configuration afterwards, assuming the
 * new thread will not get far before main's next line. Both sides take config_lock, which makes
 * every access race-free but orders nothing: if the worker takes the lock first it copies the
 * still-NULL pointer and dereferences it (SIGSEGV, a read of a field at a small address).
 *
 * Schedule that exposes it (1 preemption): main returns from pthread_create and is preempted
 * at its pthread_mutex_lock(&config_lock) (or anywhere between the clone and that lock); the
 * worker runs, reads config == NULL and faults on config->verbosity.
 *
 * Without a preemption main keeps running after pthread_create, publishes the configuration,
 * and only lets the worker run when it blocks in pthread_join. Natively the bug shows now and
 * then: the kernel may run the new thread before pthread_create has returned in main.
 *
 * Fixed twin: order_violation_fixed.c (publish before pthread_create). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct config {
  const char* name;
  int verbosity;
  int retries;
};

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config* config; /* guarded by config_lock; NULL until main publishes it */
static int worker_result;

static void* worker(void* arg) {
  pthread_mutex_lock(&config_lock);
  struct config* c = config;
  pthread_mutex_unlock(&config_lock);
  /* No NULL check: the author believed the configuration always exists by now. */
  worker_result = c->verbosity * 10 + c->retries;
  return arg;
}

int main(void) {
  static struct config the_config = {"default", 2, 3};
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  /* Too late: the worker may already be running. */
  pthread_mutex_lock(&config_lock);
  config = &the_config;
  pthread_mutex_unlock(&config_lock);
  pthread_join(thread, NULL);
  assert(worker_result == 23);
  printf("worker result %d\n", worker_result);
  return 0;
}
