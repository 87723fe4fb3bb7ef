/* POSIX semaphores. sem_post may be called from a signal handler, so everything on its path is
 * async-signal-safe: a relaxed load, raw system calls, and (when active) a TLS access that the
 * TLS model chosen for the shim keeps free of allocation (announce.c). Semaphores have no owner,
 * so they never enter the held list. */
#include <semaphore.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

CHESS_EXPORT int sem_wait(sem_t *sem) {
  if (!chess_inert()) chess_announce(CHESS_OP_SEM_WAIT, sem);
  return CHESS_REAL(sem_wait)(sem);
}

CHESS_EXPORT int sem_trywait(sem_t *sem) {
  if (!chess_inert()) chess_announce(CHESS_OP_SEM_WAIT | CHESS_OP_FLAG_TRY, sem);
  return CHESS_REAL(sem_trywait)(sem);
}

CHESS_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *deadline) {
  if (!chess_inert()) chess_announce(CHESS_OP_SEM_WAIT | CHESS_OP_FLAG_TIMED, sem);
  return CHESS_REAL(sem_timedwait)(sem, deadline);
}

CHESS_EXPORT int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *deadline) {
  if (!chess_inert()) chess_announce(CHESS_OP_SEM_WAIT | CHESS_OP_FLAG_TIMED, sem);
  return CHESS_REAL(sem_clockwait)(sem, clock, deadline);
}

CHESS_EXPORT int sem_post(sem_t *sem) {
  if (!chess_inert()) chess_announce(CHESS_OP_SEM_POST, sem);
  return CHESS_REAL(sem_post)(sem);
}
