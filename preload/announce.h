/* What every wrapper does besides calling the real function: find out whether chess-trace is
 * there, announce the operation, and keep the calling thread's held-lock list. */
#ifndef CHESS_PRELOAD_ANNOUNCE_H
#define CHESS_PRELOAD_ANNOUNCE_H

#include <stdint.h>

#include "preload/held_locks.h"
#include "seccomp/hypercall_abi.h"

#pragma GCC visibility push(hidden)

#define CHESS_EXPORT __attribute__((visibility("default")))

enum chess_mode {
  CHESS_MODE_UNKNOWN = 0, /* before the first look: the constructor or an earlier wrapper looks */
  CHESS_MODE_INERT = 1,   /* no supervisor (or one of another ABI version): never a hypercall */
  CHESS_MODE_ACTIVE = 2,
};
extern int chess_mode;

/* The wrappers' fast path, one predictable branch: natively the shim is inert for good. */
static inline int chess_inert(void) {
  return __builtin_expect(__atomic_load_n(&chess_mode, __ATOMIC_RELAXED) == CHESS_MODE_INERT, 1);
}

/* Looks once per process image for chess-trace's control word in the auxiliary vector
 * (seccomp/hypercall_abi.h; forked children inherit the answer) and returns the mode. */
enum chess_mode chess_decide_mode(void);

/* When the shim is active: registers the calling thread's state if it has not yet, announces
 * `op` on `object` (a scheduling point) made from `site` (the program's call), and returns 1.
 * Otherwise (or once chess-trace has let the program go) returns 0 and does nothing. */
int chess_announce_from(uint32_t op, const void *object, const void *site);
/* In an exported wrapper: the program's call is the wrapper's return address. */
#define chess_announce(op, object) chess_announce_from((op), (object), __builtin_return_address(0))

/* The calling thread's held-lock list; call only after chess_announce returned 1. A lock
 * acquired is noted as taken where the thread's latest announcement was made from. */
void chess_note_acquired(const void *object, uint32_t op);
struct chess_held_removal chess_note_releasing(const void *object);
void chess_note_release_undone(const void *object, struct chess_held_removal removal);

/* In a forked child: its thread is a new thread to the supervisor, so it registers again. */
void chess_forget_registration(void);

#pragma GCC visibility pop

#endif
