/* pthread mutexes. A lock that succeeds (including a robust mutex's EOWNERDEAD, which hands the
 * mutex over) joins the held list; an unlock leaves it just before the real unlock, so a thread
 * stopped inside the unlock (waking a waiter) is not reported as still holding the mutex. */
#include <errno.h>
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

static int locked(pthread_mutex_t *mutex, int result) {
  if (result == 0 || result == EOWNERDEAD) chess_note_acquired(mutex, CHESS_OP_MUTEX_LOCK);
  return result;
}

CHESS_EXPORT int pthread_mutex_lock(pthread_mutex_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_LOCK, mutex))
    return CHESS_REAL(pthread_mutex_lock)(mutex);
  return locked(mutex, CHESS_REAL(pthread_mutex_lock)(mutex));
}

CHESS_EXPORT int pthread_mutex_trylock(pthread_mutex_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_TRYLOCK | CHESS_OP_FLAG_TRY, mutex))
    return CHESS_REAL(pthread_mutex_trylock)(mutex);
  return locked(mutex, CHESS_REAL(pthread_mutex_trylock)(mutex));
}

CHESS_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_TIMEDLOCK | CHESS_OP_FLAG_TIMED, mutex))
    return CHESS_REAL(pthread_mutex_timedlock)(mutex, deadline);
  return locked(mutex, CHESS_REAL(pthread_mutex_timedlock)(mutex, deadline));
}

CHESS_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock,
                                         const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_TIMEDLOCK | CHESS_OP_FLAG_TIMED, mutex))
    return CHESS_REAL(pthread_mutex_clocklock)(mutex, clock, deadline);
  return locked(mutex, CHESS_REAL(pthread_mutex_clocklock)(mutex, clock, deadline));
}

CHESS_EXPORT int pthread_mutex_unlock(pthread_mutex_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_UNLOCK, mutex))
    return CHESS_REAL(pthread_mutex_unlock)(mutex);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  int result = CHESS_REAL(pthread_mutex_unlock)(mutex);
  if (result != 0) chess_note_release_undone(mutex, removal);
  return result;
}
