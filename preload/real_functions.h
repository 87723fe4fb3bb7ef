/* The C library functions the shim wraps, and how a wrapper reaches the real one.
 *
 * Every wrapper calls through a pointer, chess_real_<name>. It starts out pointing at a
 * first-call trampoline, so a wrapper that runs before the shim's constructor (from another library's
 * constructor, say) works without testing anything: the trampoline resolves all the pointers, then
 * calls on. After that the pointer is the real function and a call costs one indirect jump.
 *
 * The list below is the single place that names each function, its prototype and, where the
 * C library has several versions of it, the version to bind to. Keep it in step with
 * preload/exports.map. */
#ifndef CHESS_PRELOAD_REAL_FUNCTIONS_H
#define CHESS_PRELOAD_REAL_FUNCTIONS_H

#include <pthread.h>
#include <semaphore.h>
#include <threads.h>
#include <time.h>

/* The condition variable functions exist twice on x86_64: GLIBC_2.2.5 is the pre-NPTL layout
 * kept for old binaries, GLIBC_2.3.2 the one every program built since 2002 uses. The others
 * have one implementation (their GLIBC_2.34 default and the older version name the same code). */
#define CHESS_COND_VERSION "GLIBC_2.3.2"

/* X(return type, name, (parameters), (arguments), version or NULL for the default) */
#define CHESS_FOR_EACH_REAL_FUNCTION(X)                                                               \
  X(int, pthread_mutex_lock, (pthread_mutex_t * a), (a), NULL)                                        \
  X(int, pthread_mutex_trylock, (pthread_mutex_t * a), (a), NULL)                                     \
  X(int, pthread_mutex_timedlock, (pthread_mutex_t * a, const struct timespec *b), (a, b), NULL)      \
  X(int, pthread_mutex_clocklock, (pthread_mutex_t * a, clockid_t b, const struct timespec *c),       \
    (a, b, c), NULL)                                                                                  \
  X(int, pthread_mutex_unlock, (pthread_mutex_t * a), (a), NULL)                                      \
  X(int, pthread_rwlock_rdlock, (pthread_rwlock_t * a), (a), NULL)                                    \
  X(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t * a), (a), NULL)                                 \
  X(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t * a, const struct timespec *b), (a, b), NULL)  \
  X(int, pthread_rwlock_clockrdlock, (pthread_rwlock_t * a, clockid_t b, const struct timespec *c),   \
    (a, b, c), NULL)                                                                                  \
  X(int, pthread_rwlock_wrlock, (pthread_rwlock_t * a), (a), NULL)                                    \
  X(int, pthread_rwlock_trywrlock, (pthread_rwlock_t * a), (a), NULL)                                 \
  X(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t * a, const struct timespec *b), (a, b), NULL)  \
  X(int, pthread_rwlock_clockwrlock, (pthread_rwlock_t * a, clockid_t b, const struct timespec *c),   \
    (a, b, c), NULL)                                                                                  \
  X(int, pthread_rwlock_unlock, (pthread_rwlock_t * a), (a), NULL)                                    \
  X(int, pthread_cond_wait, (pthread_cond_t * a, pthread_mutex_t * b), (a, b), CHESS_COND_VERSION)    \
  X(int, pthread_cond_timedwait, (pthread_cond_t * a, pthread_mutex_t * b, const struct timespec *c), \
    (a, b, c), CHESS_COND_VERSION)                                                                    \
  X(int, pthread_cond_clockwait,                                                                      \
    (pthread_cond_t * a, pthread_mutex_t * b, clockid_t c, const struct timespec *d), (a, b, c, d),   \
    NULL)                                                                                             \
  X(int, pthread_cond_signal, (pthread_cond_t * a), (a), CHESS_COND_VERSION)                          \
  X(int, pthread_cond_broadcast, (pthread_cond_t * a), (a), CHESS_COND_VERSION)                       \
  X(int, pthread_barrier_wait, (pthread_barrier_t * a), (a), NULL)                                    \
  X(int, sem_wait, (sem_t * a), (a), NULL)                                                            \
  X(int, sem_trywait, (sem_t * a), (a), NULL)                                                         \
  X(int, sem_timedwait, (sem_t * a, const struct timespec *b), (a, b), NULL)                          \
  X(int, sem_clockwait, (sem_t * a, clockid_t b, const struct timespec *c), (a, b, c), NULL)          \
  X(int, sem_post, (sem_t * a), (a), NULL)                                                            \
  X(int, pthread_spin_lock, (pthread_spinlock_t * a), (a), NULL)                                      \
  X(int, pthread_spin_trylock, (pthread_spinlock_t * a), (a), NULL)                                   \
  X(int, pthread_spin_unlock, (pthread_spinlock_t * a), (a), NULL)                                    \
  X(int, pthread_once, (pthread_once_t * a, void (*b)(void)), (a, b), NULL)                           \
  X(int, mtx_lock, (mtx_t * a), (a), NULL)                                                            \
  X(int, mtx_trylock, (mtx_t * a), (a), NULL)                                                         \
  X(int, mtx_timedlock, (mtx_t * a, const struct timespec *b), (a, b), NULL)                          \
  X(int, mtx_unlock, (mtx_t * a), (a), NULL)                                                          \
  X(int, cnd_wait, (cnd_t * a, mtx_t * b), (a, b), NULL)                                              \
  X(int, cnd_timedwait, (cnd_t * a, mtx_t * b, const struct timespec *c), (a, b, c), NULL)            \
  X(int, cnd_signal, (cnd_t * a), (a), NULL)                                                          \
  X(int, cnd_broadcast, (cnd_t * a), (a), NULL)                                                       \
  X(void, call_once, (once_flag * a, void (*b)(void)), (a, b), NULL)

#pragma GCC visibility push(hidden)

/* The real function, for a wrapper to call. Another thread may be storing the pointer. */
#define CHESS_REAL(name) __atomic_load_n(&chess_real_##name, __ATOMIC_RELAXED)

#define CHESS_DECLARE_REAL(ret, name, params, args, version) extern ret(*chess_real_##name) params;
CHESS_FOR_EACH_REAL_FUNCTION(CHESS_DECLARE_REAL)
#undef CHESS_DECLARE_REAL

/* Points every chess_real_<name> at the real function. Idempotent and safe to call from several
 * threads; the constructor calls it so that later calls never reach the dynamic linker. */
void chess_resolve_real_functions(void);

#pragma GCC visibility pop

#endif
