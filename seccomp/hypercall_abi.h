/* The hypercall ABI between the preload shim (plain C) and the supervisor.
 * A hypercall is syscall(CHESS_HYPERCALL_BASE + n, args...). Numbers must match seccomp/arch.h.
 * Natively (no supervisor) every hypercall fails with ENOSYS, so the shim can stay silent. */
#ifndef CHESS_SECCOMP_HYPERCALL_ABI_H
#define CHESS_SECCOMP_HYPERCALL_ABI_H

#include <stdint.h>

#define CHESS_HYPERCALL_BASE 1000
#define CHESS_HYPERCALL_COUNT 8

/* syscall(CHESS_HYPERCALL_BASE + CHESS_HC_HELLO, version) returns CHESS_HC_MAGIC under
 * chess-trace (when it accepts this version of the ABI) and -1/ENOSYS natively. The shim asks
 * once per process, after every exec; when the answer is not the magic it never makes another
 * hypercall in that process. */
#define CHESS_HC_HELLO 0
#define CHESS_HC_MAGIC 0x43485353L /* "CHSS" */
#define CHESS_HC_VERSION 1

/* syscall(CHESS_HYPERCALL_BASE + CHESS_HC_SYNC_OP, op, object): the calling thread is about to
 * perform `op` (enum chess_sync_op) on the object at address `object` (the mutex, the condition
 * variable, the semaphore…). It is a scheduling point: the supervisor may run other threads
 * first. It returns 0; the shim then calls the real function, whose semantics are unchanged. */
#define CHESS_HC_SYNC_OP 1

/* syscall(CHESS_HYPERCALL_BASE + CHESS_HC_THREAD_STATE, address): the calling thread's
 * struct chess_thread_state lives at `address` (thread-local storage of the shim). Made once per
 * thread, before its first CHESS_HC_SYNC_OP. The supervisor reads it (never writes it) for
 * reports: which locks the thread holds. */
#define CHESS_HC_THREAD_STATE 2

enum chess_sync_op {
  CHESS_OP_MUTEX_LOCK = 1,
  CHESS_OP_MUTEX_TRYLOCK = 2,
  CHESS_OP_MUTEX_TIMEDLOCK = 3,
  CHESS_OP_MUTEX_UNLOCK = 4,
  CHESS_OP_RWLOCK_RDLOCK = 5,     /* also tryrdlock and timedrdlock: see CHESS_OP_FLAG_TRY/TIMED */
  CHESS_OP_RWLOCK_WRLOCK = 6,     /* also trywrlock and timedwrlock */
  CHESS_OP_RWLOCK_UNLOCK = 7,
  CHESS_OP_COND_WAIT = 8,         /* object: the condition variable; also timedwait */
  CHESS_OP_COND_SIGNAL = 9,
  CHESS_OP_COND_BROADCAST = 10,
  CHESS_OP_BARRIER_WAIT = 11,
  CHESS_OP_SEM_WAIT = 12,         /* also trywait and timedwait */
  CHESS_OP_SEM_POST = 13,
  CHESS_OP_SPIN_LOCK = 14,        /* also trylock */
  CHESS_OP_SPIN_UNLOCK = 15,
  CHESS_OP_ONCE = 16,             /* pthread_once and call_once: object is the once control */
  CHESS_OP_LAST = CHESS_OP_ONCE
};

/* Or'ed into the op: the call does not wait (trylock, trywait), or waits with a deadline. */
#define CHESS_OP_FLAG_TRY 0x100
#define CHESS_OP_FLAG_TIMED 0x200
#define CHESS_OP_KIND_MASK 0xff

/* What the supervisor may read of a thread (CHESS_HC_THREAD_STATE). The shim keeps `held`
 * current: after a lock is acquired it is appended, at its release removed. Locks past
 * CHESS_MAX_HELD are counted in `held_count` but not listed. */
#define CHESS_MAX_HELD 16
struct chess_held_lock {
  uint64_t object;  /* the lock's address */
  uint32_t op;      /* how it was taken: CHESS_OP_MUTEX_LOCK, _RWLOCK_RDLOCK, _RWLOCK_WRLOCK, _SPIN_LOCK */
  uint32_t reserved;
};
struct chess_thread_state {
  uint32_t abi_version; /* CHESS_HC_VERSION */
  uint32_t held_count;
  struct chess_held_lock held[CHESS_MAX_HELD];
};

#endif
