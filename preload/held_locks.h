/* The list of locks a thread holds, as the supervisor reads it (struct chess_thread_state of
 * seccomp/hypercall_abi.h), plus a private continuation so that the listed part stays exact for
 * threads that hold more than CHESS_MAX_HELD locks and then release some. Pure bookkeeping on
 * memory the caller owns: no TLS, no system calls, so tests can drive it directly. */
#ifndef CHESS_PRELOAD_HELD_LOCKS_H
#define CHESS_PRELOAD_HELD_LOCKS_H

#include <stdint.h>

#include "seccomp/hypercall_abi.h"

#pragma GCC visibility push(hidden)

#define CHESS_PRIVATE_HELD 48

struct chess_held_locks {
  /* What the supervisor reads. held_count counts every lock held; the first
   * min(held_count, CHESS_MAX_HELD) entries of held[] are listed, but an entry whose object is 0
   * is a lock the shim no longer knows (see below). */
  struct chess_thread_state visible;
  /* Entries CHESS_MAX_HELD onwards of the same list, never read by the supervisor. */
  struct chess_held_lock more[CHESS_PRIVATE_HELD];
  /* How many entries of visible.held ++ more are known; held_count - known locks were taken
   * while both arrays were full. Every entry at or past `known` is zero. */
  uint32_t known;
};

/* What chess_held_remove took out, so that chess_held_undo_remove can put it back. */
struct chess_held_removal {
  uint32_t op;   /* the removed entry's op; 0 when none was found */
  uint64_t site; /* … and where it was taken */
  int unlisted;  /* nothing listed matched, but unlisted locks were held: one was counted off */
};

void chess_held_add(struct chess_held_locks *locks, uintptr_t object, uint32_t op, uint64_t site);
/* Removes the last entry for `object`; when there is none but some locks went unlisted, assumes
 * it was one of those. */
struct chess_held_removal chess_held_remove(struct chess_held_locks *locks, uintptr_t object);
void chess_held_undo_remove(struct chess_held_locks *locks, uintptr_t object,
                            struct chess_held_removal removal);

#pragma GCC visibility pop

#endif
