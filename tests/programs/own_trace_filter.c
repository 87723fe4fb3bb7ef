/* own_trace_filter: a program whose own seccomp filter asks for a tracer with SECCOMP_RET_TRACE,
 * for calls chess-trace does not trap (getppid), traps (sched_yield, a blocking flock) or
 * traps only sometimes (a non-blocking flock). It has no tracer of its own, so natively each of
 * them fails with ENOSYS — and must under chess-trace, whose stops for them carry the program's
 * data. Reading the clock goes through the vDSO natively, whatever the filter says; under
 * chess-trace, which hides the vDSO, it must still work. Then the program traps itself, with
 * raise(SIGTRAP) and an int3 of its own: its handler must see both, though the preload shim
 * announces by int3 too under a filter (chess-trace takes only its own traps). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t traps;
static void count_trap(int signal) {
  (void)signal;
  ++traps;
}

static void report(const char* what, long rc) {
  printf("%s: %s\n", what, rc < 0 ? strerrorname_np(errno) : "ok");
}

int main(void) {
  char path[] = "/tmp/own_trace_filter.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return 1;
  unlink(path);
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_yield, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_flock, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 7),
  };
  struct sock_fprog program = {sizeof code / sizeof code[0], code};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  report("own filter", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program));
  report("getppid", syscall(SYS_getppid));
  report("sched_yield", sched_yield());
  report("flock", flock(fd, LOCK_EX));
  report("flock non-blocking", flock(fd, LOCK_SH | LOCK_NB));
  struct timespec now;
  report("clock_gettime", clock_gettime(CLOCK_MONOTONIC, &now));
  report("getpid", getpid());
  signal(SIGTRAP, count_trap);
  raise(SIGTRAP);
  __asm__ volatile("int3");
  printf("SIGTRAP handled %d times\n", (int)traps);
  return 0;
}
