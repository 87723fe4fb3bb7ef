/* order_violation_fixed: the correct twin of order_violation_buggy.c.
 *
 * main publishes the configuration before it creates the worker. pthread_create orders
 * everything the creator did before it with everything the new thread does, so the worker
 * sees the configuration under every schedule. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct config {
  const char* name;
  int verbosity;
  int retries;
};

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config* config; /* guarded by config_lock; set before the worker exists */
static int worker_result;

static void* worker(void* arg) {
  pthread_mutex_lock(&config_lock);
  struct config* c = config;
  pthread_mutex_unlock(&config_lock);
  worker_result = c->verbosity * 10 + c->retries;
  return arg;
}

int main(void) {
  static struct config the_config = {"default", 2, 3};
  pthread_mutex_lock(&config_lock);
  config = &the_config;
  pthread_mutex_unlock(&config_lock);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  assert(worker_result == 23);
  printf("worker result %d\n", worker_result);
  return 0;
}
