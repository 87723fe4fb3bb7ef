/* C11 <threads.h>. glibc implements these on its internal pthread functions, which do not come
 * back through the pthread wrappers, so each call is announced once, here, with the same ops as
 * its pthread counterpart (a mtx_t is a mutex, a cnd_t a condition variable, call_once a once).
 * C11 mutexes are never robust, so a wait gives its mutex back on every return. */
#include <threads.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

CHESS_EXPORT int mtx_lock(mtx_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_LOCK, mutex)) return CHESS_REAL(mtx_lock)(mutex);
  int result = CHESS_REAL(mtx_lock)(mutex);
  if (result == thrd_success) chess_note_acquired(mutex, CHESS_OP_MUTEX_LOCK);
  return result;
}

CHESS_EXPORT int mtx_trylock(mtx_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_TRYLOCK | CHESS_OP_FLAG_TRY, mutex))
    return CHESS_REAL(mtx_trylock)(mutex);
  int result = CHESS_REAL(mtx_trylock)(mutex);
  if (result == thrd_success) chess_note_acquired(mutex, CHESS_OP_MUTEX_LOCK);
  return result;
}

CHESS_EXPORT int mtx_timedlock(mtx_t *mutex, const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_TIMEDLOCK | CHESS_OP_FLAG_TIMED, mutex))
    return CHESS_REAL(mtx_timedlock)(mutex, deadline);
  int result = CHESS_REAL(mtx_timedlock)(mutex, deadline);
  if (result == thrd_success) chess_note_acquired(mutex, CHESS_OP_MUTEX_LOCK);
  return result;
}

CHESS_EXPORT int mtx_unlock(mtx_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_MUTEX_UNLOCK, mutex)) return CHESS_REAL(mtx_unlock)(mutex);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  int result = CHESS_REAL(mtx_unlock)(mutex);
  if (result != thrd_success) chess_note_release_undone(mutex, removal);
  return result;
}

CHESS_EXPORT int cnd_wait(cnd_t *cond, mtx_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_COND_WAIT, cond)) return CHESS_REAL(cnd_wait)(cond, mutex);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  int result = CHESS_REAL(cnd_wait)(cond, mutex);
  chess_note_release_undone(mutex, removal);
  return result;
}

CHESS_EXPORT int cnd_timedwait(cnd_t *cond, mtx_t *mutex, const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_COND_WAIT | CHESS_OP_FLAG_TIMED, cond))
    return CHESS_REAL(cnd_timedwait)(cond, mutex, deadline);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  int result = CHESS_REAL(cnd_timedwait)(cond, mutex, deadline);
  chess_note_release_undone(mutex, removal);
  return result;
}

CHESS_EXPORT int cnd_signal(cnd_t *cond) {
  if (!chess_inert()) chess_announce(CHESS_OP_COND_SIGNAL, cond);
  return CHESS_REAL(cnd_signal)(cond);
}

CHESS_EXPORT int cnd_broadcast(cnd_t *cond) {
  if (!chess_inert()) chess_announce(CHESS_OP_COND_BROADCAST, cond);
  return CHESS_REAL(cnd_broadcast)(cond);
}

CHESS_EXPORT void call_once(once_flag *flag, void (*function)(void)) {
  if (!chess_inert()) chess_announce(CHESS_OP_ONCE, flag);
  CHESS_REAL(call_once)(flag, function);
}
