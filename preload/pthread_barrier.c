/* pthread barriers: the wait is a point; which thread gets PTHREAD_BARRIER_SERIAL_THREAD is the
 * real barrier's business. */
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

CHESS_EXPORT int pthread_barrier_wait(pthread_barrier_t *barrier) {
  if (!chess_inert()) chess_announce(CHESS_OP_BARRIER_WAIT, barrier);
  return CHESS_REAL(pthread_barrier_wait)(barrier);
}
