/* lazy_init_fixed: double-checked lazy initialisation done right.
 *
 * The slow path fills the object in under the mutex, then publishes its pointer with a release
 * store; the fast path reads the pointer with an acquire load, so a thread that sees the pointer
 * sees the object whole. Correct under every schedule: the twin of lazy_init_buggy.c.
 *
 * On x86 the acquire load and the release store are plain `mov`s: a race detector that works
 * from the binary sees no synchronization on `instance`, and may report the fields' write and
 * the fast path's read as a race. A report, not a bug: no schedule makes this program fail.
 */
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
  struct config* config = atomic_load_explicit(&instance, memory_order_acquire);
  if (config == NULL) {
    pthread_mutex_lock(&init_lock);
    config = atomic_load_explicit(&instance, memory_order_relaxed);
    if (config == NULL) {
      config = &storage;
      config->port = 8080;
      config->workers = 4;
      atomic_store_explicit(&instance, config, memory_order_release);
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
