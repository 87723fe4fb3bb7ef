// PR_GET_SECCOMP answers 0 while the program has installed no filter of its own (chess-trace's
// is not the program's), and SECCOMP_MODE_FILTER once it has, in its threads and fork children
// too; a filter the kernel refuses (a null program) changes nothing.
// faithful-hold
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faithful_helpers.h"

static void child_asks(void) { printf("child: PR_GET_SECCOMP %d\n", prctl(PR_GET_SECCOMP)); }

int main(int argc, char** argv) {
  printf("at start: PR_GET_SECCOMP %d\n", prctl(PR_GET_SECCOMP));
  errno = 0;
  const long refused = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL);
  printf("a null filter: %ld (%s)\n", refused, strerror(errno));
  printf("after it: PR_GET_SECCOMP %d\n", prctl(PR_GET_SECCOMP));
  struct sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog program = {.len = 1, .filter = allow_all};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  printf("PR_SET_SECCOMP: %d\n", prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program));
  printf("filtered: PR_GET_SECCOMP %d\n", prctl(PR_GET_SECCOMP));
  in_child(child_asks);
  hold_if_asked(argc, argv);
  return 0;
}
