/* pthread spin locks: listed while held like mutexes, so a report shows who spins on whom. */
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

CHESS_EXPORT int pthread_spin_lock(pthread_spinlock_t *lock) {
  if (chess_inert() || !chess_announce(CHESS_OP_SPIN_LOCK, (const void *)lock))
    return CHESS_REAL(pthread_spin_lock)(lock);
  int result = CHESS_REAL(pthread_spin_lock)(lock);
  if (result == 0) chess_note_acquired((const void *)lock, CHESS_OP_SPIN_LOCK);
  return result;
}

CHESS_EXPORT int pthread_spin_trylock(pthread_spinlock_t *lock) {
  if (chess_inert() || !chess_announce(CHESS_OP_SPIN_LOCK | CHESS_OP_FLAG_TRY, (const void *)lock))
    return CHESS_REAL(pthread_spin_trylock)(lock);
  int result = CHESS_REAL(pthread_spin_trylock)(lock);
  if (result == 0) chess_note_acquired((const void *)lock, CHESS_OP_SPIN_LOCK);
  return result;
}

CHESS_EXPORT int pthread_spin_unlock(pthread_spinlock_t *lock) {
  if (chess_inert() || !chess_announce(CHESS_OP_SPIN_UNLOCK, (const void *)lock))
    return CHESS_REAL(pthread_spin_unlock)(lock);
  struct chess_held_removal removal = chess_note_releasing((const void *)lock);
  int result = CHESS_REAL(pthread_spin_unlock)(lock);
  if (result != 0) chess_note_release_undone((const void *)lock, removal);
  return result;
}
