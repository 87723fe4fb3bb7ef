/* pthread_once. The real call is a tail call, so the wrapper leaves no frame behind: an
 * exception thrown by a C++ init routine (std::call_once relies on it propagating through
 * pthread_once) and a cancellation inside it unwind exactly as without the shim. */
#include <pthread.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

CHESS_EXPORT int pthread_once(pthread_once_t *once, void (*init)(void)) {
  if (!chess_inert()) chess_announce(CHESS_OP_ONCE, once);
  return CHESS_REAL(pthread_once)(once, init);
}
