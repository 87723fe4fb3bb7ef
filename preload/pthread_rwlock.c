/* pthread read-write locks. A read lock and a write lock are listed with their own ops, so a
 * report can tell readers from the writer; an unlock removes the thread's last entry for the
 * lock, whichever kind it was. */
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

static int locked(pthread_rwlock_t *rwlock, uint32_t op, int result) {
  if (result == 0) chess_note_acquired(rwlock, op);
  return result;
}

#define CHESS_READ CHESS_OP_RWLOCK_RDLOCK
#define CHESS_WRITE CHESS_OP_RWLOCK_WRLOCK

CHESS_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock) {
  if (chess_inert() || !chess_announce(CHESS_READ, rwlock))
    return CHESS_REAL(pthread_rwlock_rdlock)(rwlock);
  return locked(rwlock, CHESS_READ, CHESS_REAL(pthread_rwlock_rdlock)(rwlock));
}

CHESS_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock) {
  if (chess_inert() || !chess_announce(CHESS_READ | CHESS_OP_FLAG_TRY, rwlock))
    return CHESS_REAL(pthread_rwlock_tryrdlock)(rwlock);
  return locked(rwlock, CHESS_READ, CHESS_REAL(pthread_rwlock_tryrdlock)(rwlock));
}

CHESS_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_READ | CHESS_OP_FLAG_TIMED, rwlock))
    return CHESS_REAL(pthread_rwlock_timedrdlock)(rwlock, deadline);
  return locked(rwlock, CHESS_READ, CHESS_REAL(pthread_rwlock_timedrdlock)(rwlock, deadline));
}

CHESS_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                                            const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_READ | CHESS_OP_FLAG_TIMED, rwlock))
    return CHESS_REAL(pthread_rwlock_clockrdlock)(rwlock, clock, deadline);
  return locked(rwlock, CHESS_READ, CHESS_REAL(pthread_rwlock_clockrdlock)(rwlock, clock, deadline));
}

CHESS_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock) {
  if (chess_inert() || !chess_announce(CHESS_WRITE, rwlock))
    return CHESS_REAL(pthread_rwlock_wrlock)(rwlock);
  return locked(rwlock, CHESS_WRITE, CHESS_REAL(pthread_rwlock_wrlock)(rwlock));
}

CHESS_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock) {
  if (chess_inert() || !chess_announce(CHESS_WRITE | CHESS_OP_FLAG_TRY, rwlock))
    return CHESS_REAL(pthread_rwlock_trywrlock)(rwlock);
  return locked(rwlock, CHESS_WRITE, CHESS_REAL(pthread_rwlock_trywrlock)(rwlock));
}

CHESS_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_WRITE | CHESS_OP_FLAG_TIMED, rwlock))
    return CHESS_REAL(pthread_rwlock_timedwrlock)(rwlock, deadline);
  return locked(rwlock, CHESS_WRITE, CHESS_REAL(pthread_rwlock_timedwrlock)(rwlock, deadline));
}

CHESS_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                                            const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_WRITE | CHESS_OP_FLAG_TIMED, rwlock))
    return CHESS_REAL(pthread_rwlock_clockwrlock)(rwlock, clock, deadline);
  return locked(rwlock, CHESS_WRITE, CHESS_REAL(pthread_rwlock_clockwrlock)(rwlock, clock, deadline));
}

CHESS_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rwlock) {
  if (chess_inert() || !chess_announce(CHESS_OP_RWLOCK_UNLOCK, rwlock))
    return CHESS_REAL(pthread_rwlock_unlock)(rwlock);
  struct chess_held_removal removal = chess_note_releasing(rwlock);
  int result = CHESS_REAL(pthread_rwlock_unlock)(rwlock);
  if (result != 0) chess_note_release_undone(rwlock, removal);
  return result;
}
