/* pthread condition variables. A wait is announced on the condition variable. The real wait
 * releases the mutex and takes it again before returning, so the mutex leaves the held list for
 * the wait (a thread blocked on a condition does not hold its mutex, which matters for deadlock
 * reports) and comes back after it. It comes back whatever the result, except
 * ENOTRECOVERABLE, when a robust mutex could not be taken again: on a timeout the mutex is
 * held again, and on an early error (EINVAL, EPERM) it was never let go. When a wait is
 * cancelled the mutex is taken again for the cleanup handlers but stays off the list: the
 * wrapper adds no cleanup handler of its own, so that cancellation behaves exactly as without
 * the shim; the handler's unlock then finds nothing to remove. */
#include <errno.h>
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

static int woken(pthread_mutex_t *mutex, struct chess_held_removal removal, int result) {
  if (result != ENOTRECOVERABLE) chess_note_release_undone(mutex, removal);
  return result;
}

CHESS_EXPORT int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  if (chess_inert() || !chess_announce(CHESS_OP_COND_WAIT, cond))
    return CHESS_REAL(pthread_cond_wait)(cond, mutex);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  return woken(mutex, removal, CHESS_REAL(pthread_cond_wait)(cond, mutex));
}

CHESS_EXPORT int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                        const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_COND_WAIT | CHESS_OP_FLAG_TIMED, cond))
    return CHESS_REAL(pthread_cond_timedwait)(cond, mutex, deadline);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  return woken(mutex, removal, CHESS_REAL(pthread_cond_timedwait)(cond, mutex, deadline));
}

CHESS_EXPORT int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                                        const struct timespec *deadline) {
  if (chess_inert() || !chess_announce(CHESS_OP_COND_WAIT | CHESS_OP_FLAG_TIMED, cond))
    return CHESS_REAL(pthread_cond_clockwait)(cond, mutex, clock, deadline);
  struct chess_held_removal removal = chess_note_releasing(mutex);
  return woken(mutex, removal, CHESS_REAL(pthread_cond_clockwait)(cond, mutex, clock, deadline));
}

CHESS_EXPORT int pthread_cond_signal(pthread_cond_t *cond) {
  if (!chess_inert()) chess_announce(CHESS_OP_COND_SIGNAL, cond);
  return CHESS_REAL(pthread_cond_signal)(cond);
}

CHESS_EXPORT int pthread_cond_broadcast(pthread_cond_t *cond) {
  if (!chess_inert()) chess_announce(CHESS_OP_COND_BROADCAST, cond);
  return CHESS_REAL(pthread_cond_broadcast)(cond);
}
