/* The hypercall ABI between the preload shim (plain C) and the supervisor.
 *
 * How the shim learns that chess-trace runs it. At the exec of every program image chess-trace
 * adds two entries to the image's auxiliary vector, which the C library's getauxval scans:
 *   CHESS_AT_CONTROL_ADDRESS, whose value is the address of the control word, and
 *   CHESS_AT_CONTROL, whose value slot is the control word itself.
 * The shim is active only when the word's low bits are the version it speaks (CHESS_HC_VERSION).
 * Natively there is no such entry: the shim stays inert without making a single system call, so
 * a program's own seccomp filter never sees it and it never executes a trap. The word lives in
 * the auxiliary vector on the initial stack, which the C library reads for getauxval whenever
 * asked, so it stays mapped; the supervisor changes it while the program runs (it says how to
 * announce, CHESS_CONTROL_TRAP, and a word without the version makes the shim inert again). The
 * shim reads it at each announcement.
 *
 * A hypercall has a number, CHESS_HYPERCALL_BASE + n, and up to two arguments. It is made one of
 * two ways:
 *   - a system call: syscall(CHESS_HYPERCALL_BASE + n, args...). chess-trace's seccomp filter
 *     traps it (seccomp/arch.h). A filter the program installed itself sees it too, and a
 *     sandbox's default action would kill the program or fail the call.
 *   - a trap (when the control word has CHESS_CONTROL_TRAP): the number in rax, the arguments in
 *     rdi and rsi, then the instruction int3 followed by a 7-byte no-op, the marker (together the
 *     8 bytes of CHESS_TRAP_SIGNATURE). No seccomp filter sees an int3. The supervisor recognises
 *     its own traps by the signature around the stopped thread's instruction pointer, answers in
 *     rax and resumes the thread after the marker. Natively the int3 would be a SIGTRAP.
 * Both are scheduling points alike. chess-trace sets CHESS_CONTROL_TRAP in a process once it
 * installs a seccomp filter of its own (and in every image exec'd under one); until then the
 * system call is the cheaper of the two.
 *
 * The answers: -ENOSYS for a number the supervisor does not know, -EINVAL for a bad argument. */
#ifndef CHESS_SECCOMP_HYPERCALL_ABI_H
#define CHESS_SECCOMP_HYPERCALL_ABI_H

#include <stdint.h>

#define CHESS_HYPERCALL_BASE 1000
#define CHESS_HYPERCALL_COUNT 8

/* Version 2: the auxiliary vector replaced version 1's hello hypercall (number 0, now unused).
 * Version 3: struct chess_thread_state says where each lock was taken, and where the operation
 * being announced is called from. */
#define CHESS_HC_VERSION 3

/* Auxiliary-vector types of chess-trace's own ("CH", far above the kernel's). */
#define CHESS_AT_CONTROL_ADDRESS 0x43480001UL
#define CHESS_AT_CONTROL 0x43480002UL
/* The control word: the version in the low 16 bits, flags above. */
#define CHESS_CONTROL_VERSION_MASK 0xffffULL
#define CHESS_CONTROL_TRAP 0x10000ULL /* announce with the trap, not the system call */

/* The trap: int3, then `nopl 0x43485353(%rax)` (0f 1f 80 and "SSHC" little-endian), read as one
 * little-endian word from the int3's address. At the trap's SIGTRAP the thread's instruction
 * pointer is just after the int3; it resumes CHESS_TRAP_MARKER_LENGTH bytes further. */
#define CHESS_TRAP_SIGNATURE 0x43485353801f0fccULL
#define CHESS_TRAP_MARKER_LENGTH 7

/* CHESS_HYPERCALL_BASE + CHESS_HC_SYNC_OP (op, object): the calling thread is about to perform
 * `op` (enum chess_sync_op) on the object at address `object` (the mutex, the condition
 * variable, the semaphore…). It is a scheduling point: the supervisor may run other threads
 * first. It returns 0; the shim then calls the real function, whose semantics are unchanged. */
#define CHESS_HC_SYNC_OP 1

/* CHESS_HYPERCALL_BASE + CHESS_HC_THREAD_STATE (address): the calling thread's
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
  uint64_t site;    /* where it was taken: the return address of the program's call */
};
struct chess_thread_state {
  uint32_t abi_version; /* CHESS_HC_VERSION */
  uint32_t held_count;
  struct chess_held_lock held[CHESS_MAX_HELD];
  /* The return address of the program's call whose CHESS_HC_SYNC_OP is the latest (written just
   * before it): where a lock is asked for. */
  uint64_t announcing_site;
};

#endif
