/* Raw system calls for the shim. The hypercalls are made with the syscall instruction itself
 * rather than libc's syscall(): natively they fail with ENOSYS, and libc's wrapper would store
 * that in errno, which the wrapped functions must leave exactly as the real ones do. A raw
 * syscall touches no errno, no lock and no memory of its own, so it is async-signal-safe and can
 * run before libc's own symbols are bound. The "memory" clobber matters: the supervisor reads
 * the thread's held-lock list while it is stopped in the hypercall, so every store to that list
 * must have reached memory by then. */
#ifndef CHESS_PRELOAD_HYPERCALL_H
#define CHESS_PRELOAD_HYPERCALL_H

#if !defined(__x86_64__)
#error "the chess-trace preload shim supports x86_64 only (see seccomp/arch.h)"
#endif

static inline long chess_raw_syscall0(long number) {
  long result;
  __asm__ volatile("syscall" : "=a"(result) : "a"(number) : "rcx", "r11", "memory");
  return result;
}

static inline long chess_raw_syscall3(long number, long first, long second, long third) {
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(first), "S"(second), "d"(third)
                   : "rcx", "r11", "memory");
  return result;
}

static inline long chess_raw_syscall2(long number, long first, long second) {
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(first), "S"(second)
                   : "rcx", "r11", "memory");
  return result;
}

#endif
