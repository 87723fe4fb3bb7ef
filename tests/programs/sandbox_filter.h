/* A sandbox as programs install it: a seccomp filter that allows a list of system calls and
 * kills the process for any other (SECCOMP_RET_KILL_PROCESS), written out in classic BPF as
 * libseccomp would compile it. The list is what these test programs and the C library under
 * them need natively — threads, locks, output, fork and exec, an abort, the clock — and none of
 * chess-trace's own numbers. The clock's calls can be left out (SANDBOX_WITHOUT_CLOCK), as a
 * list made by watching one machine may leave them out: there the C library reads the clock
 * through the vDSO, without a system call. Included by the sandboxed_* programs. */
#ifndef CHESS_TESTS_PROGRAMS_SANDBOX_FILTER_H
#define CHESS_TESTS_PROGRAMS_SANDBOX_FILTER_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int sandbox_allowed[] = {
    /* threads and locks */
    SYS_futex, SYS_clone, SYS_clone3, SYS_set_robust_list, SYS_rseq, SYS_set_tid_address, SYS_exit,
    SYS_exit_group, SYS_madvise, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_brk, SYS_sched_yield,
    SYS_rt_sigprocmask, SYS_rt_sigreturn,
    /* output, and reading files (the dynamic loader of an exec'd image) */
    SYS_write, SYS_writev, SYS_read, SYS_pread64, SYS_openat, SYS_close, SYS_newfstatat, SYS_fstat,
    SYS_access, SYS_arch_prctl, SYS_prlimit64, SYS_getrandom,
    /* processes */
    SYS_wait4, SYS_execve, SYS_getpid, SYS_gettid, SYS_getppid,
    /* an abort: the assertion's message, then SIGABRT */
    SYS_rt_sigaction, SYS_tgkill,
    /* the clock (last: SANDBOX_WITHOUT_CLOCK leaves these out) */
    SYS_clock_gettime, SYS_gettimeofday, SYS_time, SYS_getcpu, SYS_clock_getres,
};
enum { kSandboxClockCalls = 5 };

enum sandbox_how {
  SANDBOX_SECCOMP_TSYNC = 1, /* seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): every thread of the process */
  SANDBOX_PRCTL = 2,         /* prctl(PR_SET_SECCOMP): the calling thread (and what it creates) */
  SANDBOX_WITHOUT_CLOCK = 4, /* or'ed in: the clock's calls are refused too */
  SANDBOX_CLONE_THREADS_ONLY = 8, /* or'ed in: clone only for threads (CLONE_THREAD), no fork */
};

static void install_sandbox(int how) {
  enum { kAll = sizeof sandbox_allowed / sizeof sandbox_allowed[0] };
  const int kCount = (how & SANDBOX_WITHOUT_CLOCK) ? kAll - kSandboxClockCalls : kAll;
  struct sock_filter code[4 + 5 + 2 * kAll + 1];
  int n = 0;
  code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  if (how & SANDBOX_CLONE_THREADS_ONLY) {
    /* As sandboxes check clone's flags (clone3's are in memory, where no filter looks). */
    code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  }
  for (int i = 0; i < kCount; ++i) {
    code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sandbox_allowed[i], 0, 1);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  }
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  struct sock_fprog program = {(unsigned short)n, code};
  long rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (rc == 0) {
    rc = (how & SANDBOX_PRCTL) ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0)
                              : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
  }
  if (rc != 0) {
    fprintf(stderr, "cannot install the sandbox: %d %d\n", (int)rc, errno);
    exit(2);
  }
}

#endif
