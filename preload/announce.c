/* The hypercalls, and the per-thread state the supervisor reads.
 *
 * The state is thread-local. Its TLS model is the dialect-2 ("TLS descriptor") form of the
 * general-dynamic model, chosen in preload/CMakeLists.txt: like plain general-dynamic it works
 * when the shim is dlopen'ed, but when the shim is preloaded (how chess-trace loads it) its TLS
 * sits in the static block and an access is a call that returns a constant offset, never
 * __tls_get_addr with its possible allocation. That keeps the sem_post wrapper
 * async-signal-safe when it runs in a signal handler. The initial-exec model would do the same
 * for preloading but can make a dlopen of the shim fail. Natively none of this is touched: the
 * inert path reads only `chess_mode`, after one look at the auxiliary vector. */
#include "preload/announce.h"

#include <errno.h>
#include <stddef.h>
#include <sys/auxv.h>

#include "preload/hypercall.h"

int chess_mode;
/* The control word chess-trace put in the auxiliary vector (seccomp/hypercall_abi.h), once the
 * mode is known to be active. */
static const uint64_t *chess_control;

struct chess_thread {
  struct chess_held_locks locks;
  int registered;
};
static _Thread_local struct chess_thread chess_thread;

enum chess_mode chess_decide_mode(void) {
  int mode = __atomic_load_n(&chess_mode, __ATOMIC_ACQUIRE);  /* pairs with the store below */
  if (mode != CHESS_MODE_UNKNOWN) return mode;
  /* Two threads may both ask before either stores the answer; they find the same. getauxval
   * sets errno when there is no such entry (natively), which the wrappers must not show. */
  const int saved_errno = errno;
  const uint64_t *control = (const uint64_t *)getauxval(CHESS_AT_CONTROL_ADDRESS);
  errno = saved_errno;
  mode = control != NULL &&
                 (__atomic_load_n(control, __ATOMIC_RELAXED) & CHESS_CONTROL_VERSION_MASK) == CHESS_HC_VERSION
             ? CHESS_MODE_ACTIVE
             : CHESS_MODE_INERT;
  if (mode == CHESS_MODE_ACTIVE) __atomic_store_n(&chess_control, control, __ATOMIC_RELAXED);
  __atomic_store_n(&chess_mode, mode, __ATOMIC_RELEASE);
  return mode;
}

/* A hypercall the way the control word says, or none (-ENOSYS) when the word no longer carries
 * this version: chess-trace let the program go (a tree handed over to a debugger). */
static long chess_hypercall(long number, long first, long second) {
  const uint64_t control = __atomic_load_n(chess_control, __ATOMIC_RELAXED);
  if ((control & CHESS_CONTROL_VERSION_MASK) != CHESS_HC_VERSION) return -ENOSYS;
  if (control & CHESS_CONTROL_TRAP) return chess_trap_hypercall2(CHESS_HYPERCALL_BASE + number, first, second);
  return chess_raw_syscall2(CHESS_HYPERCALL_BASE + number, first, second);
}

int chess_announce_from(uint32_t op, const void *object, const void *site) {
  if (chess_decide_mode() != CHESS_MODE_ACTIVE) return 0;
  struct chess_thread *self = &chess_thread;
  if (!self->registered) {
    /* A signal handler running between the hypercall and the flag registers the thread a
     * second time with the same address, which the supervisor can take as a repeat. */
    self->locks.visible.abi_version = CHESS_HC_VERSION;
    if (chess_hypercall(CHESS_HC_THREAD_STATE, (long)&self->locks.visible, 0) == -ENOSYS) return 0;
    self->registered = 1;
  }
  self->locks.visible.announcing_site = (uint64_t)(uintptr_t)site;
  if (chess_hypercall(CHESS_HC_SYNC_OP, (long)op, (long)(uintptr_t)object) == -ENOSYS) return 0;
  return 1;
}

void chess_note_acquired(const void *object, uint32_t op) {
  chess_held_add(&chess_thread.locks, (uintptr_t)object, op, chess_thread.locks.visible.announcing_site);
}

struct chess_held_removal chess_note_releasing(const void *object) {
  return chess_held_remove(&chess_thread.locks, (uintptr_t)object);
}

void chess_note_release_undone(const void *object, struct chess_held_removal removal) {
  chess_held_undo_remove(&chess_thread.locks, (uintptr_t)object, removal);
}

void chess_forget_registration(void) { chess_thread.registered = 0; }
