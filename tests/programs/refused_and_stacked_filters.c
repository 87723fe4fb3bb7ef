/* What chess-trace refuses, and a filter of the program's own stacked on chess-trace's. Under
 * chess-trace: ptrace fails with EPERM, io_uring_setup and userfaultfd with ENOSYS, rseq with
 * ENOSYS, and the program's own filter still makes getpid fail with EPERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(const char* what, long rc) {
  printf("%s: %s\n", what, rc < 0 ? strerrorname_np(errno) : "ok");
}

int main(void) {
  report("ptrace", ptrace(PTRACE_TRACEME, 0, NULL, NULL));
  char params[120] = {0};
  report("io_uring_setup", syscall(SYS_io_uring_setup, 4, params));
  report("userfaultfd", syscall(SYS_userfaultfd, 0));
  report("rseq", syscall(SYS_rseq, NULL, 0, 0, 0));
  struct sock_filter deny_getpid[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {4, deny_getpid};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  report("own seccomp filter", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program));
  report("getpid under the own filter", syscall(SYS_getpid));
  return 0;
}
