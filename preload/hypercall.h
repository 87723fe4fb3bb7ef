/* The two ways of making a hypercall (seccomp/hypercall_abi.h). A system call is made with the
 * syscall instruction itself rather than libc's syscall(), which would store a failure in errno,
 * which the wrapped functions must leave exactly as the real ones do. Neither way touches errno,
 * a lock or memory of its own, so both are async-signal-safe and can run before libc's own
 * symbols are bound. The "memory" clobber matters: the supervisor reads the thread's held-lock
 * list while it is stopped in the hypercall, so every store to that list must have reached
 * memory by then. */
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

/* The trap: int3 and the marker after it. The supervisor answers in rax and resumes the thread
 * after the marker; the other registers are left as they were (an int3 clobbers none). Made only
 * under chess-trace, when the control word says so: natively it would be a SIGTRAP. */
static inline long chess_trap_hypercall2(long number, long first, long second) {
  long result;
  __asm__ volatile("int3\n\t.byte 0x0f, 0x1f, 0x80, 0x53, 0x53, 0x48, 0x43"
                   : "=a"(result)
                   : "a"(number), "D"(first), "S"(second)
                   : "memory");
  return result;
}

#endif
