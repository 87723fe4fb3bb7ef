/* lazy_init_buggy: double-checked lazy initialisation that publishes the object before it is
 * initialised.
 *
 * get_config() returns a shared object created on first use: a fast path that reads the
 * published pointer with a relaxed atomic load and no lock, and a slow path that creates the
 * object under a mutex and publishes it.
 *
 * Bug: the slow path stores the pointer first and fills the object in after. Relaxed atomics
 * order nothing, and here the program order itself is wrong: a thread on the fast path between
 * the two sees the pointer and an object still zero.
 *
 * Schedule that exposes it (1 preemption): the first thread takes the slow path, publishes the
 * pointer, and is preempted before it writes the object's fields. The second thread's fast path
 * finds the pointer and reads a port of 0: SIGABRT.
 *
 * The window is between the publishing store and the field's store, both plain instructions
 * (a relaxed store is a mov): only a race point there (the second thread's read of the field
 * races with that store) lets the search switch threads in it. Without a preemption the
 * first thread leaves the slow path with the object whole.
 *
 * Fixed twin: lazy_init_fixed.c (the object is filled in, then published with a release store
 * that the fast path reads with an acquire load). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

struct config {
  int port;
  int workers;
};

static struct config storage;
static _Atomic(struct config*) instance;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static struct config* get_config(void) {
  struct config* config = atomic_load_explicit(&instance, memory_order_relaxed);
  if (config == NULL) {
    pthread_mutex_lock(&init_lock);
    config = atomic_load_explicit(&instance, memory_order_relaxed);
    if (config == NULL) {
      config = &storage;
      atomic_store_explicit(&instance, config, memory_order_relaxed);
      /* The window: the object is published, and still all zero. */
      config->port = 8080;
      config->workers = 4;
    }
    pthread_mutex_unlock(&init_lock);
  }
  return config;
}

static void* serve(void* arg) {
  const struct config* config = get_config();
  assert(config->port == 8080 && "a half-initialised configuration was used");
  return arg;
}

int main(void) {
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, serve, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("port %d, %d workers\n", storage.port, storage.workers);
  return 0;
}
