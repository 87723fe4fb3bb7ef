/* The program fake_supervisor runs with the shim active. It names its objects ("@ NAME
 * ADDRESS" lines), then makes a fixed sequence of sync operations, each thread's in a fixed
 * order, so that the transcript of announcements and held-lock lists can be compared with
 * active_scenario.expected. It checks every result too: being announced must not change
 * what the calls return. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER,
                       m3 = PTHREAD_MUTEX_INITIALIZER, cm = PTHREAD_MUTEX_INITIALIZER,
                       fm = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rm; /* recursive */
static pthread_mutex_t many[18];
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t sp;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem, hs;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static mtx_t cm11;
static cnd_t cv11;
static once_flag once11 = ONCE_FLAG_INIT;
static int ready;

static const struct timespec past = {0, 0};

static void name(const char *label, const void *address) { printf("@ %s %p\n", label, address); }
static void nothing(void) {}
static void post_in_handler(int signal) {
  (void)signal;
  sem_post(&hs);
}

/* T1: takes cm, sets `ready`, signals cv. */
static void *signaller(void *arg) {
  (void)arg;
  CHECK_EQ(pthread_mutex_lock(&cm), 0);
  ready = 1;
  CHECK_EQ(pthread_cond_signal(&cv), 0);
  CHECK_EQ(pthread_mutex_unlock(&cm), 0);
  return NULL;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&rm, &attr);
  for (int i = 0; i < 18; ++i) pthread_mutex_init(&many[i], NULL);
  pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&bar, NULL, 1);
  sem_init(&sem, 0, 0);
  sem_init(&hs, 0, 0);
  mtx_init(&cm11, mtx_plain);
  cnd_init(&cv11);
  name("m1", &m1), name("m2", &m2), name("m3", &m3), name("cm", &cm), name("fm", &fm), name("rm", &rm);
  name("rw", &rw), name("sp", (const void *)&sp), name("cv", &cv), name("bar", &bar), name("sem", &sem);
  name("hs", &hs), name("once", &once), name("cm11", &cm11), name("cv11", &cv11), name("once11", &once11);
  for (int i = 0; i < 18; ++i) {
    char label[16];
    snprintf(label, sizeof label, "many%d", i);
    name(label, &many[i]);
  }
  fflush(stdout);

  /* Mutexes: nested, a failed trylock (not held), a timed lock. */
  CHECK_EQ(pthread_mutex_lock(&m1), 0);
  CHECK_EQ(pthread_mutex_lock(&m2), 0);
  CHECK_EQ(pthread_mutex_trylock(&m2), EBUSY);
  CHECK_EQ(pthread_mutex_timedlock(&m3, &past), 0);
  CHECK_EQ(pthread_mutex_unlock(&m2), 0);
  CHECK_EQ(pthread_mutex_clocklock(&m2, CLOCK_MONOTONIC, &past), 0);
  CHECK_EQ(pthread_mutex_unlock(&m3), 0);
  CHECK_EQ(pthread_mutex_unlock(&m2), 0);
  CHECK_EQ(pthread_mutex_unlock(&m1), 0);
  /* A recursive mutex appears once per lock. */
  CHECK_EQ(pthread_mutex_lock(&rm), 0);
  CHECK_EQ(pthread_mutex_trylock(&rm), 0);
  CHECK_EQ(pthread_mutex_unlock(&rm), 0);
  CHECK_EQ(pthread_mutex_unlock(&rm), 0);

  /* Read-write locks. */
  CHECK_EQ(pthread_rwlock_rdlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_tryrdlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_trywrlock(&rw), EBUSY);
  CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_timedrdlock(&rw, &past), 0);
  CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_wrlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
  CHECK_EQ(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &past), 0);
  CHECK_EQ(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &past), EDEADLK);
  CHECK_EQ(pthread_rwlock_timedwrlock(&rw, &past), EDEADLK);
  CHECK_EQ(pthread_rwlock_unlock(&rw), 0);

  /* Spin locks. */
  CHECK_EQ(pthread_spin_lock(&sp), 0);
  CHECK_EQ(pthread_spin_trylock(&sp), EBUSY);
  CHECK_EQ(pthread_spin_unlock(&sp), 0);

  /* A condition wait that times out gives the mutex back; one that is signalled too. */
  CHECK_EQ(pthread_mutex_lock(&cm), 0);
  CHECK_EQ(pthread_cond_timedwait(&cv, &cm, &past), ETIMEDOUT);
  CHECK_EQ(pthread_cond_clockwait(&cv, &cm, CLOCK_MONOTONIC, &past), ETIMEDOUT);
  pthread_t t;
  pthread_create(&t, NULL, signaller, NULL);
  while (!ready) CHECK_EQ(pthread_cond_wait(&cv, &cm), 0);
  CHECK_EQ(pthread_cond_broadcast(&cv), 0);
  CHECK_EQ(pthread_mutex_unlock(&cm), 0);
  pthread_join(t, NULL);

  /* Semaphores, a barrier, onces. */
  CHECK_EQ(sem_post(&sem), 0);
  CHECK_EQ(sem_wait(&sem), 0);
  errno = 0;
  CHECK_EQ(sem_trywait(&sem), -1);
  CHECK_EQ(errno, EAGAIN);
  CHECK_EQ(sem_timedwait(&sem, &past), -1);
  CHECK_EQ(sem_clockwait(&sem, CLOCK_MONOTONIC, &past), -1);
  CHECK_EQ(pthread_barrier_wait(&bar), PTHREAD_BARRIER_SERIAL_THREAD);
  CHECK_EQ(pthread_once(&once, nothing), 0);
  call_once(&once11, nothing);

  /* C11. */
  CHECK_EQ(mtx_lock(&cm11), thrd_success);
  CHECK_EQ(mtx_trylock(&cm11), thrd_busy);
  CHECK_EQ(cnd_timedwait(&cv11, &cm11, &past), thrd_timedout);
  CHECK_EQ(cnd_signal(&cv11), thrd_success);
  CHECK_EQ(cnd_broadcast(&cv11), thrd_success);
  CHECK_EQ(mtx_unlock(&cm11), thrd_success);
  CHECK_EQ(mtx_timedlock(&cm11, &past), thrd_success);
  CHECK_EQ(mtx_unlock(&cm11), thrd_success);

  /* More locks than the supervisor's list has room for. */
  for (int i = 0; i < 18; ++i) CHECK_EQ(pthread_mutex_lock(&many[i]), 0);
  CHECK_EQ(pthread_mutex_unlock(&many[0]), 0);
  for (int i = 17; i >= 1; --i) CHECK_EQ(pthread_mutex_unlock(&many[i]), 0);

  /* sem_post from a signal handler. */
  struct sigaction action = {.sa_handler = post_in_handler};
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, NULL);
  raise(SIGUSR1);
  CHECK_EQ(sem_trywait(&hs), 0);

  /* A forked child is a new thread to the supervisor: it registers before its first op. It
   * holds (a copy of) what the forking thread held. */
  CHECK_EQ(pthread_mutex_lock(&fm), 0);
  pid_t child = fork();
  if (child == 0) {
    int failures_before = test_failures;
    CHECK_EQ(pthread_mutex_unlock(&fm), 0);
    CHECK_EQ(pthread_mutex_lock(&m1), 0);
    CHECK_EQ(pthread_mutex_unlock(&m1), 0);
    _exit(test_failures == failures_before ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(pthread_mutex_unlock(&fm), 0);
  return test_finish("active_scenario");
}
