/* Process start. Resolving the real functions here, in the constructor, means that later calls
 * (in signal handlers, in threads) never enter the dynamic linker; wrappers that run earlier,
 * from constructors of libraries initialised before this one, resolve on their first call
 * instead (real_functions.c). The mode is decided here too, from the auxiliary vector, so a
 * process without a supervisor is inert from then on without having made a system call. A
 * forked child keeps the answer, as it is still under the same supervisor; an exec loads the
 * shim afresh and looks again. */
#include <pthread.h>
#include <stddef.h>

#include "preload/announce.h"
#include "preload/real_functions.h"

__attribute__((constructor)) static void chess_preload_start(void) {
  chess_resolve_real_functions();
  if (chess_decide_mode() == CHESS_MODE_ACTIVE)
    /* Only the child handler: it runs in the child's one thread, which must register anew.
     * Children made without fork handlers (vfork, posix_spawn, _Fork) may call only
     * async-signal-safe functions; of the wrapped ones that is sem_post, whose announcement
     * then comes under the forking thread's registration. */
    pthread_atfork(NULL, NULL, chess_forget_registration);
}
