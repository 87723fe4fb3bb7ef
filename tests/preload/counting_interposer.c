/* Another LD_PRELOAD interposer, as a user might already have one: it counts a few functions
 * and forwards with dlsym(RTLD_NEXT). Preloaded before or after the shim, each must forward to
 * the other, so that neither drops out of the chain. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <string.h>

static atomic_long lock_calls, unlock_calls, cond_wait_calls, sem_post_calls;

#define NEXT(name) ((__typeof__(&name))next_function(#name))
/* Not a tail call: RTLD_NEXT means "after the object dlsym returns to". */
__attribute__((noinline)) static void *next_function(const char *name) {
  void *volatile address = dlsym(RTLD_NEXT, name);
  return address;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
  atomic_fetch_add(&lock_calls, 1);
  return NEXT(pthread_mutex_lock)(mutex);
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
  atomic_fetch_add(&unlock_calls, 1);
  return NEXT(pthread_mutex_unlock)(mutex);
}

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  atomic_fetch_add(&cond_wait_calls, 1);
  return NEXT(pthread_cond_wait)(cond, mutex);
}

int sem_post(sem_t *sem) {
  atomic_fetch_add(&sem_post_calls, 1);
  return NEXT(sem_post)(sem);
}

long counting_interposer_calls(const char *name) {
  if (strcmp(name, "pthread_mutex_lock") == 0) return atomic_load(&lock_calls);
  if (strcmp(name, "pthread_mutex_unlock") == 0) return atomic_load(&unlock_calls);
  if (strcmp(name, "pthread_cond_wait") == 0) return atomic_load(&cond_wait_calls);
  if (strcmp(name, "sem_post") == 0) return atomic_load(&sem_post_calls);
  return -1;
}

/* What this interposer forwards `name` to. */
void *counting_interposer_next(const char *name) { return next_function(name); }
