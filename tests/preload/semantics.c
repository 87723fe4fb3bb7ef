/* Every function the shim wraps, in the edge cases where a wrapper could most easily change what
 * the caller sees: error codes, errno, timeouts, ownership errors, the serial thread of a
 * barrier, once-only initialisation under contention, cancellation, a semaphore posted from a
 * signal handler, a fork. Run natively and with the shim preloaded (where, with no supervisor,
 * it must be inert and invisible); both runs must pass. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

enum { kShortWaitMs = 30 };

static struct timespec deadline_after_ms(clockid_t clock, long ms) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += ms * 1000000L;
  t.tv_sec += t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  return t;
}

static const struct timespec kPast = {0, 0};
static const struct timespec kInvalid = {0, 2000000000L};

/* A thread that takes a lock with `lock`, says so, and releases it when told to. */
struct holder {
  int (*lock)(void *);
  int (*unlock)(void *);
  void *object;
  sem_t locked, release;
  pthread_t thread;
};

static void *hold(void *arg) {
  struct holder *h = arg;
  CHECK_EQ(h->lock(h->object), 0);
  sem_post(&h->locked);
  while (sem_wait(&h->release) != 0) {
  }
  CHECK_EQ(h->unlock(h->object), 0);
  return NULL;
}

static void start_holder(struct holder *h, int (*lock)(void *), int (*unlock)(void *), void *object) {
  h->lock = lock;
  h->unlock = unlock;
  h->object = object;
  sem_init(&h->locked, 0, 0);
  sem_init(&h->release, 0, 0);
  pthread_create(&h->thread, NULL, hold, h);
  while (sem_wait(&h->locked) != 0) {
  }
}

static void stop_holder(struct holder *h) {
  sem_post(&h->release);
  pthread_join(h->thread, NULL);
  sem_destroy(&h->locked);
  sem_destroy(&h->release);
}

static int lock_mutex(void *m) { return pthread_mutex_lock(m); }
static int unlock_mutex(void *m) { return pthread_mutex_unlock(m); }
static int read_lock(void *l) { return pthread_rwlock_rdlock(l); }
static int write_lock(void *l) { return pthread_rwlock_wrlock(l); }
static int unlock_rwlock(void *l) { return pthread_rwlock_unlock(l); }
static int lock_mtx(void *m) { return mtx_lock(m) == thrd_success ? 0 : -1; }
static int unlock_mtx(void *m) { return mtx_unlock(m) == thrd_success ? 0 : -1; }

static void init_mutex(pthread_mutex_t *m, int type) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, type);
  pthread_mutex_init(m, &attr);
  pthread_mutexattr_destroy(&attr);
}

/* errno must come out of a successful call as it went in. */
#define CHECK_SUCCEEDS_KEEPING_ERRNO(call) \
  do {                                     \
    errno = 4242;                          \
    CHECK_EQ((call), 0);                   \
    CHECK_EQ(errno, 4242);                 \
  } while (0)

static void *unlock_from_other_thread(void *m) { return (void *)(long)pthread_mutex_unlock(m); }

static void mutexes(void) {
  pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_mutex_lock(&normal));
  CHECK_EQ(pthread_mutex_trylock(&normal), EBUSY);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_mutex_unlock(&normal));
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_mutex_trylock(&normal));
  CHECK_EQ(pthread_mutex_unlock(&normal), 0);

  pthread_mutex_t checked;
  init_mutex(&checked, PTHREAD_MUTEX_ERRORCHECK);
  CHECK_EQ(pthread_mutex_lock(&checked), 0);
  CHECK_EQ(pthread_mutex_lock(&checked), EDEADLK);
  struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_mutex_timedlock(&checked, &soon), EDEADLK);
  pthread_t other;
  void *other_result;
  pthread_create(&other, NULL, unlock_from_other_thread, &checked);
  pthread_join(other, &other_result);
  CHECK_EQ((long)other_result, EPERM);
  CHECK_EQ(pthread_mutex_unlock(&checked), 0);
  CHECK_EQ(pthread_mutex_unlock(&checked), EPERM);
  pthread_mutex_destroy(&checked);

  pthread_mutex_t recursive;
  init_mutex(&recursive, PTHREAD_MUTEX_RECURSIVE);
  CHECK_EQ(pthread_mutex_lock(&recursive), 0);
  CHECK_EQ(pthread_mutex_lock(&recursive), 0);
  CHECK_EQ(pthread_mutex_trylock(&recursive), 0);
  for (int i = 0; i < 3; ++i) CHECK_EQ(pthread_mutex_unlock(&recursive), 0);
  CHECK_EQ(pthread_mutex_unlock(&recursive), EPERM);
  pthread_mutex_destroy(&recursive);

  /* Timed and clocked locks on a mutex another thread holds. */
  pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
  struct holder h;
  start_holder(&h, lock_mutex, unlock_mutex, &held);
  CHECK_EQ(pthread_mutex_trylock(&held), EBUSY);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_mutex_timedlock(&held, &soon), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_timedlock(&held, &kPast), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_timedlock(&held, &kInvalid), EINVAL);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_EQ(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &soon), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_clocklock(&held, CLOCK_PROCESS_CPUTIME_ID, &kPast), EINVAL);
  stop_holder(&h);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_mutex_timedlock(&held, &soon));
  CHECK_EQ(pthread_mutex_unlock(&held), 0);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &soon));
  CHECK_EQ(pthread_mutex_unlock(&held), 0);
}

static void *lock_and_die(void *m) {
  CHECK_EQ(pthread_mutex_lock(m), 0);
  return NULL;
}

static void robust_mutex(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &attr);
  pthread_mutexattr_destroy(&attr);
  pthread_t t;
  pthread_create(&t, NULL, lock_and_die, &m);
  pthread_join(t, NULL);
  CHECK_EQ(pthread_mutex_lock(&m), EOWNERDEAD);
  CHECK_EQ(pthread_mutex_consistent(&m), 0);
  CHECK_EQ(pthread_mutex_unlock(&m), 0);
  CHECK_EQ(pthread_mutex_trylock(&m), 0);
  CHECK_EQ(pthread_mutex_unlock(&m), 0);
  pthread_mutex_destroy(&m);
}

static void rwlocks(void) {
  pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_rdlock(&l));
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_tryrdlock(&l));
  CHECK_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_unlock(&l));
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_wrlock(&l));
  CHECK_EQ(pthread_rwlock_tryrdlock(&l), EBUSY);
  CHECK_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
  CHECK_EQ(pthread_rwlock_rdlock(&l), EDEADLK);
  CHECK_EQ(pthread_rwlock_wrlock(&l), EDEADLK);
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_trywrlock(&l));
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);

  /* A writer elsewhere: every timed read and write lock times out. */
  struct holder h;
  start_holder(&h, write_lock, unlock_rwlock, &l);
  struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_rwlock_timedrdlock(&l, &soon), ETIMEDOUT);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_rwlock_timedwrlock(&l, &soon), ETIMEDOUT);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_EQ(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &soon), ETIMEDOUT);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_EQ(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &soon), ETIMEDOUT);
  CHECK_EQ(pthread_rwlock_timedrdlock(&l, &kInvalid), EINVAL);
  CHECK_EQ(pthread_rwlock_clockwrlock(&l, CLOCK_PROCESS_CPUTIME_ID, &kPast), EINVAL);
  stop_holder(&h);

  /* A reader elsewhere: reads succeed, a timed write lock times out. */
  start_holder(&h, read_lock, unlock_rwlock, &l);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_timedrdlock(&l, &soon));
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &soon));
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_rwlock_timedwrlock(&l, &soon), ETIMEDOUT);
  stop_holder(&h);
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &soon));
  CHECK_EQ(pthread_rwlock_unlock(&l), 0);
  pthread_rwlock_destroy(&l);
}

struct waiter {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int waiting, woken;
};

static void *wait_for_signal(void *arg) {
  struct waiter *w = arg;
  CHECK_EQ(pthread_mutex_lock(&w->mutex), 0);
  w->waiting = 1;
  while (!w->woken) CHECK_EQ(pthread_cond_wait(&w->cond, &w->mutex), 0);
  /* The mutex is held again: an errorcheck mutex would refuse the unlock otherwise. */
  CHECK_EQ(pthread_mutex_unlock(&w->mutex), 0);
  return NULL;
}

static void conditions(void) {
  struct waiter w = {.waiting = 0, .woken = 0};
  init_mutex(&w.mutex, PTHREAD_MUTEX_ERRORCHECK);
  pthread_cond_init(&w.cond, NULL);

  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_cond_signal(&w.cond));
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_cond_broadcast(&w.cond));
  /* Waiting without holding an errorcheck mutex. */
  CHECK_EQ(pthread_cond_wait(&w.cond, &w.mutex), EPERM);

  CHECK_EQ(pthread_mutex_lock(&w.mutex), 0);
  struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(pthread_cond_timedwait(&w.cond, &w.mutex, &soon), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_lock(&w.mutex), EDEADLK); /* held again after the timeout */
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_EQ(pthread_cond_clockwait(&w.cond, &w.mutex, CLOCK_MONOTONIC, &soon), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_lock(&w.mutex), EDEADLK);
  CHECK_EQ(pthread_cond_timedwait(&w.cond, &w.mutex, &kPast), ETIMEDOUT);
  CHECK_EQ(pthread_cond_timedwait(&w.cond, &w.mutex, &kInvalid), EINVAL);
  CHECK_EQ(pthread_cond_clockwait(&w.cond, &w.mutex, CLOCK_PROCESS_CPUTIME_ID, &kPast), EINVAL);
  CHECK_EQ(pthread_mutex_unlock(&w.mutex), 0);

  pthread_t t;
  pthread_create(&t, NULL, wait_for_signal, &w);
  for (;;) {
    CHECK_EQ(pthread_mutex_lock(&w.mutex), 0);
    int waiting = w.waiting; /* and, since we hold the mutex, inside pthread_cond_wait */
    if (waiting) {
      w.woken = 1;
      CHECK_EQ(pthread_cond_signal(&w.cond), 0);
    }
    CHECK_EQ(pthread_mutex_unlock(&w.mutex), 0);
    if (waiting) break;
    usleep(1000);
  }
  pthread_join(t, NULL);
  pthread_cond_destroy(&w.cond);
  pthread_mutex_destroy(&w.mutex);
}

enum { kBarrierThreads = 4, kBarrierRounds = 50 };
static pthread_barrier_t barrier;
static atomic_int serial_count[kBarrierRounds];
static atomic_int other_results;

static void *barrier_rounds(void *arg) {
  (void)arg;
  for (int round = 0; round < kBarrierRounds; ++round) {
    int result = pthread_barrier_wait(&barrier);
    if (result == PTHREAD_BARRIER_SERIAL_THREAD)
      atomic_fetch_add(&serial_count[round], 1);
    else if (result != 0)
      atomic_fetch_add(&other_results, 1);
  }
  return NULL;
}

static void barriers(void) {
  pthread_barrier_init(&barrier, NULL, kBarrierThreads);
  pthread_t threads[kBarrierThreads];
  for (int i = 0; i < kBarrierThreads; ++i) pthread_create(&threads[i], NULL, barrier_rounds, NULL);
  for (int i = 0; i < kBarrierThreads; ++i) pthread_join(threads[i], NULL);
  for (int round = 0; round < kBarrierRounds; ++round) CHECK_EQ(atomic_load(&serial_count[round]), 1);
  CHECK_EQ(atomic_load(&other_results), 0);
  pthread_barrier_destroy(&barrier);

  pthread_barrier_t single;
  pthread_barrier_init(&single, NULL, 1);
  CHECK_EQ(pthread_barrier_wait(&single), PTHREAD_BARRIER_SERIAL_THREAD);
  pthread_barrier_destroy(&single);
}

static sem_t posted_by_handler;
static void post_from_handler(int signal) {
  (void)signal;
  int saved = errno;
  sem_post(&posted_by_handler);
  errno = saved;
}
static void do_nothing(int signal) { (void)signal; }

struct interrupted_wait {
  sem_t sem;
  atomic_int done;
  int result, error;
};

static void *wait_to_be_interrupted(void *arg) {
  struct interrupted_wait *w = arg;
  errno = 0;
  w->result = sem_wait(&w->sem);
  w->error = errno;
  atomic_store(&w->done, 1);
  return NULL;
}

static void semaphores(void) {
  sem_t s;
  CHECK_EQ(sem_init(&s, 0, 0), 0);
  errno = 0;
  CHECK_EQ(sem_trywait(&s), -1);
  CHECK_EQ(errno, EAGAIN);
  errno = 0;
  struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(sem_timedwait(&s, &soon), -1);
  CHECK_EQ(errno, ETIMEDOUT);
  errno = 0;
  CHECK_EQ(sem_timedwait(&s, &kInvalid), -1);
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_EQ(sem_clockwait(&s, CLOCK_MONOTONIC, &soon), -1);
  CHECK_EQ(errno, ETIMEDOUT);
  errno = 0;
  CHECK_EQ(sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &kPast), -1);
  CHECK_EQ(errno, EINVAL);

  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_post(&s));
  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_post(&s));
  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_post(&s));
  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_wait(&s));
  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_trywait(&s));
  soon = deadline_after_ms(CLOCK_MONOTONIC, kShortWaitMs);
  CHECK_SUCCEEDS_KEEPING_ERRNO(sem_clockwait(&s, CLOCK_MONOTONIC, &soon));
  int value = -1;
  sem_getvalue(&s, &value);
  CHECK_EQ(value, 0);
  sem_destroy(&s);

  CHECK_EQ(sem_init(&s, 0, SEM_VALUE_MAX), 0);
  errno = 0;
  CHECK_EQ(sem_post(&s), -1);
  CHECK_EQ(errno, EOVERFLOW);
  sem_destroy(&s);

  /* sem_post is async-signal-safe: posted from a handler. */
  sem_init(&posted_by_handler, 0, 0);
  struct sigaction action = {.sa_handler = post_from_handler};
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, NULL);
  raise(SIGUSR1);
  CHECK_EQ(sem_trywait(&posted_by_handler), 0);
  sem_destroy(&posted_by_handler);

  /* A handler without SA_RESTART interrupts sem_wait: -1/EINTR, never restarted. */
  struct sigaction interrupt = {.sa_handler = do_nothing};
  sigemptyset(&interrupt.sa_mask);
  sigaction(SIGUSR2, &interrupt, NULL);
  struct interrupted_wait w = {.done = 0};
  sem_init(&w.sem, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, wait_to_be_interrupted, &w);
  for (int tries = 0; !atomic_load(&w.done) && tries < 1000; ++tries) {
    usleep(10000);
    if (!atomic_load(&w.done)) pthread_kill(t, SIGUSR2);
  }
  pthread_join(t, NULL);
  CHECK_EQ(w.result, -1);
  CHECK_EQ(w.error, EINTR);
  sem_destroy(&w.sem);
}

static void spinlocks(void) {
  pthread_spinlock_t spin;
  CHECK_EQ(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE), 0);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_spin_lock(&spin));
  CHECK_EQ(pthread_spin_trylock(&spin), EBUSY);
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_spin_unlock(&spin));
  CHECK_SUCCEEDS_KEEPING_ERRNO(pthread_spin_trylock(&spin));
  CHECK_EQ(pthread_spin_unlock(&spin), 0);
  pthread_spin_destroy(&spin);
}

enum { kOnceThreads = 8 };
static pthread_once_t once = PTHREAD_ONCE_INIT;
static once_flag c11_once = ONCE_FLAG_INIT;
static atomic_int once_runs, c11_once_runs;
static pthread_barrier_t once_start;

static void run_once(void) {
  atomic_fetch_add(&once_runs, 1);
  usleep(20000); /* the others arrive while this runs */
}
static void run_c11_once(void) {
  atomic_fetch_add(&c11_once_runs, 1);
  usleep(20000);
}

static void *call_both_onces(void *arg) {
  (void)arg;
  pthread_barrier_wait(&once_start);
  CHECK_EQ(pthread_once(&once, run_once), 0);
  CHECK_EQ(atomic_load(&once_runs), 1); /* done, not just started, when pthread_once returns */
  call_once(&c11_once, run_c11_once);
  CHECK_EQ(atomic_load(&c11_once_runs), 1);
  return NULL;
}

static void onces(void) {
  pthread_barrier_init(&once_start, NULL, kOnceThreads);
  pthread_t threads[kOnceThreads];
  for (int i = 0; i < kOnceThreads; ++i) pthread_create(&threads[i], NULL, call_both_onces, NULL);
  for (int i = 0; i < kOnceThreads; ++i) pthread_join(threads[i], NULL);
  CHECK_EQ(pthread_once(&once, run_once), 0);
  call_once(&c11_once, run_c11_once);
  CHECK_EQ(atomic_load(&once_runs), 1);
  CHECK_EQ(atomic_load(&c11_once_runs), 1);
  pthread_barrier_destroy(&once_start);
}

struct c11_waiter {
  mtx_t mutex;
  cnd_t cond;
  int waiting, woken, result;
};

static int c11_wait_for_signal(void *arg) {
  struct c11_waiter *w = arg;
  mtx_lock(&w->mutex);
  w->waiting = 1;
  int result = thrd_success;
  while (!w->woken && result == thrd_success) result = cnd_wait(&w->cond, &w->mutex);
  w->result = result;
  mtx_unlock(&w->mutex);
  return 7;
}

static int try_mtx_from_thread(void *m) {
  int result = mtx_trylock(m);
  if (result == thrd_success) mtx_unlock(m);
  return result;
}

static void c11_threads(void) {
  mtx_t plain;
  CHECK_EQ(mtx_init(&plain, mtx_plain), thrd_success);
  CHECK_EQ(mtx_lock(&plain), thrd_success);
  CHECK_EQ(mtx_trylock(&plain), thrd_busy);
  CHECK_EQ(mtx_unlock(&plain), thrd_success);
  CHECK_EQ(mtx_trylock(&plain), thrd_success);
  CHECK_EQ(mtx_unlock(&plain), thrd_success);
  mtx_destroy(&plain);

  mtx_t recursive;
  CHECK_EQ(mtx_init(&recursive, mtx_plain | mtx_recursive), thrd_success);
  CHECK_EQ(mtx_lock(&recursive), thrd_success);
  CHECK_EQ(mtx_lock(&recursive), thrd_success);
  CHECK_EQ(mtx_trylock(&recursive), thrd_success);
  for (int i = 0; i < 3; ++i) CHECK_EQ(mtx_unlock(&recursive), thrd_success);
  mtx_destroy(&recursive);

  mtx_t timed;
  CHECK_EQ(mtx_init(&timed, mtx_timed), thrd_success);
  struct holder h;
  start_holder(&h, lock_mtx, unlock_mtx, &timed);
  struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(mtx_timedlock(&timed, &soon), thrd_timedout);
  CHECK_EQ(mtx_trylock(&timed), thrd_busy);
  stop_holder(&h);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(mtx_timedlock(&timed, &soon), thrd_success);

  cnd_t cond;
  CHECK_EQ(cnd_init(&cond), thrd_success);
  CHECK_EQ(cnd_signal(&cond), thrd_success);
  CHECK_EQ(cnd_broadcast(&cond), thrd_success);
  soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
  CHECK_EQ(cnd_timedwait(&cond, &timed, &soon), thrd_timedout);
  /* Held again after the timeout: another thread cannot take it. */
  thrd_t prober;
  int probed = -1;
  CHECK_EQ(thrd_create(&prober, try_mtx_from_thread, &timed), thrd_success);
  CHECK_EQ(thrd_join(prober, &probed), thrd_success);
  CHECK_EQ(probed, thrd_busy);
  CHECK_EQ(mtx_unlock(&timed), thrd_success);
  cnd_destroy(&cond);
  mtx_destroy(&timed);

  struct c11_waiter w = {.waiting = 0, .woken = 0, .result = -1};
  mtx_init(&w.mutex, mtx_plain);
  cnd_init(&w.cond);
  thrd_t t;
  CHECK_EQ(thrd_create(&t, c11_wait_for_signal, &w), thrd_success);
  for (;;) {
    mtx_lock(&w.mutex);
    int waiting = w.waiting;
    if (waiting) {
      w.woken = 1;
      CHECK_EQ(cnd_broadcast(&w.cond), thrd_success);
    }
    mtx_unlock(&w.mutex);
    if (waiting) break;
    usleep(1000);
  }
  int exit_code = 0;
  CHECK_EQ(thrd_join(t, &exit_code), thrd_success);
  CHECK_EQ(exit_code, 7);
  CHECK_EQ(w.result, thrd_success);
  cnd_destroy(&w.cond);
  mtx_destroy(&w.mutex);
}

struct cancel_target {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  sem_t sem;
  int waiting;
};

static void unlock_on_cancel(void *m) { pthread_mutex_unlock(m); }

static void *wait_until_cancelled(void *arg) {
  struct cancel_target *c = arg;
  pthread_mutex_lock(&c->mutex);
  pthread_cleanup_push(unlock_on_cancel, &c->mutex);
  c->waiting = 1;
  for (;;) pthread_cond_wait(&c->cond, &c->mutex);
  pthread_cleanup_pop(1);
  return NULL;
}

static void *sem_wait_until_cancelled(void *arg) {
  struct cancel_target *c = arg;
  for (;;) sem_wait(&c->sem);
  return NULL;
}

static void cancellation(void) {
  struct cancel_target c = {.waiting = 0};
  init_mutex(&c.mutex, PTHREAD_MUTEX_ERRORCHECK);
  pthread_cond_init(&c.cond, NULL);
  sem_init(&c.sem, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, wait_until_cancelled, &c);
  for (;;) {
    pthread_mutex_lock(&c.mutex);
    int waiting = c.waiting;
    pthread_mutex_unlock(&c.mutex);
    if (waiting) break;
    usleep(1000);
  }
  CHECK_EQ(pthread_cancel(t), 0);
  void *result = NULL;
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK(result == PTHREAD_CANCELED);
  /* The cleanup handler ran with the mutex re-acquired and released it. */
  CHECK_EQ(pthread_mutex_trylock(&c.mutex), 0);
  CHECK_EQ(pthread_mutex_unlock(&c.mutex), 0);

  pthread_create(&t, NULL, sem_wait_until_cancelled, &c);
  usleep(10000);
  CHECK_EQ(pthread_cancel(t), 0);
  CHECK_EQ(pthread_join(t, &result), 0);
  CHECK(result == PTHREAD_CANCELED);
  sem_destroy(&c.sem);
  pthread_cond_destroy(&c.cond);
  pthread_mutex_destroy(&c.mutex);
}

/* A forked child of a multithreaded process: its memory shows what its forking thread held, and
 * the wrapped functions work there. (A normal mutex: an errorcheck one would name the parent's
 * thread as its owner.) */
static void forked_child(void) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  CHECK_EQ(pthread_mutex_lock(&m), 0);
  pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
  struct holder h;
  start_holder(&h, lock_mutex, unlock_mutex, &other); /* a second thread exists at the fork */
  pid_t child = fork();
  if (child == 0) {
    int failures_before = test_failures;
    CHECK_EQ(pthread_mutex_trylock(&m), EBUSY);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    struct timespec soon = deadline_after_ms(CLOCK_REALTIME, kShortWaitMs);
    CHECK_EQ(pthread_cond_timedwait(&cond, &m, &soon), ETIMEDOUT);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    sem_t s;
    sem_init(&s, 0, 0);
    CHECK_EQ(sem_post(&s), 0);
    CHECK_EQ(sem_wait(&s), 0);
    _exit(test_failures == failures_before ? 0 : 1);
  }
  int status = 0;
  CHECK_EQ(waitpid(child, &status, 0), child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  stop_holder(&h);
  CHECK_EQ(pthread_mutex_unlock(&m), 0);
}

int main(void) {
  /* Nothing before main (the shim's constructor and its failed hello included) may touch errno. */
  CHECK_EQ(errno, 0);
  test_check_expected_shim();
  mutexes();
  robust_mutex();
  rwlocks();
  conditions();
  barriers();
  semaphores();
  spinlocks();
  onces();
  c11_threads();
  cancellation();
  forked_child();
  if (test_finish("semantics") != 0) return 1;
  puts("semantics: every check passed");
  return 0;
}
