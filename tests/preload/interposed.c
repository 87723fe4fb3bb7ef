/* The shim is really in the call path: every function it is meant to wrap resolves to the shim,
 * both for a run-time lookup (dlsym(RTLD_DEFAULT), what a dlopen'ed library binds to) and for
 * the references this executable was linked with. Run with the shim preloaded. Without this, a
 * wrapper missing from the export list would make every other test pass without exercising it. */
#include <pthread.h>
#include <semaphore.h>
#include <threads.h>

#include "test_support.h"

static int in_shim(const void *address) {
  Dl_info info;
  return address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL &&
         strstr(info.dli_fname, "libchess_preload.so") != NULL;
}

#define LINKED(name) {#name, (const void *)&name}
static const struct {
  const char *name;
  const void *address;
} linked[] = {
    LINKED(pthread_mutex_lock),         LINKED(pthread_mutex_trylock),
    LINKED(pthread_mutex_timedlock),    LINKED(pthread_mutex_clocklock),
    LINKED(pthread_mutex_unlock),       LINKED(pthread_rwlock_rdlock),
    LINKED(pthread_rwlock_tryrdlock),   LINKED(pthread_rwlock_timedrdlock),
    LINKED(pthread_rwlock_clockrdlock), LINKED(pthread_rwlock_wrlock),
    LINKED(pthread_rwlock_trywrlock),   LINKED(pthread_rwlock_timedwrlock),
    LINKED(pthread_rwlock_clockwrlock), LINKED(pthread_rwlock_unlock),
    LINKED(pthread_cond_wait),          LINKED(pthread_cond_timedwait),
    LINKED(pthread_cond_clockwait),     LINKED(pthread_cond_signal),
    LINKED(pthread_cond_broadcast),     LINKED(pthread_barrier_wait),
    LINKED(sem_wait),                   LINKED(sem_trywait),
    LINKED(sem_timedwait),              LINKED(sem_clockwait),
    LINKED(sem_post),                   LINKED(pthread_spin_lock),
    LINKED(pthread_spin_trylock),       LINKED(pthread_spin_unlock),
    LINKED(pthread_once),               LINKED(mtx_lock),
    LINKED(mtx_trylock),                LINKED(mtx_timedlock),
    LINKED(mtx_unlock),                 LINKED(cnd_wait),
    LINKED(cnd_timedwait),              LINKED(cnd_signal),
    LINKED(cnd_broadcast),              LINKED(call_once),
};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s EXPECTED_EXPORTS_FILE\n", argv[0]);
    return 2;
  }
  FILE *list = fopen(argv[1], "r");
  if (list == NULL) {
    perror(argv[1]);
    return 2;
  }
  char name[128];
  int listed = 0;
  while (fscanf(list, "%127s", name) == 1) {
    ++listed;
    if (!in_shim(dlsym(RTLD_DEFAULT, name))) {
      fprintf(stderr, "dlsym(RTLD_DEFAULT, \"%s\") is in %s, not the shim\n", name, test_defining_object(name));
      ++test_failures;
    }
  }
  fclose(list);
  size_t count = sizeof linked / sizeof linked[0];
  CHECK_EQ(listed, (long)count);
  for (size_t i = 0; i < count; ++i) {
    if (!in_shim(linked[i].address)) {
      fprintf(stderr, "this program's reference to %s is not bound to the shim\n", linked[i].name);
      ++test_failures;
    }
  }
  if (test_finish("interposed") != 0) return 1;
  printf("interposed: all %d wrapped functions resolve to the shim\n", listed);
  return 0;
}
