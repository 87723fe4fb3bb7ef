// A tracer stepping its child from syscall to syscall (PTRACE_SYSCALL, TRACESYSGOOD): entry
// stops show -ENOSYS in rax and the call in orig_rax, exit stops its result — for a call the
// kernel runs (getppid), one chess-trace answers itself (sched_yield), and one the tracer skips
// at its entry and answers at its exit (getpid: orig_rax = -1, then rax). A fork with
// PTRACE_O_TRACEFORK stops at the fork event (GETEVENTMSG names the new child), which starts
// traced, in a SIGSTOP stop, and is detached.
// faithful-hold
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faithful_helpers.h"

static void child_body(void) {
  ptrace(PTRACE_TRACEME, 0, 0, 0);
  raise(SIGSTOP);
  long parent = syscall(SYS_getppid);
  long yielded = syscall(SYS_sched_yield);
  long pid = syscall(SYS_getpid);
  printf("child: getppid is the parent %d, sched_yield %ld, getpid %ld\n", parent == getppid(), yielded, pid);
  fflush(stdout);
  pid_t grandchild = fork();
  if (grandchild == 0) _exit(9);
  int status = 0;
  waitpid(grandchild, &status, 0);
  printf("child: grandchild exited %d\n", WEXITSTATUS(status));
  fflush(stdout);
  _exit(0);
}

static int interesting(long long nr) {
  return nr == SYS_getppid || nr == SYS_sched_yield || nr == SYS_getpid;
}

int main(int argc, char** argv) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) child_body();
  int status = 0;
  waitpid(child, &status, 0);
  printf("first stop: %s\n", sigabbrev_np(WSTOPSIG(status)));
  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    // Held at a syscall-entry stop.
    ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD);
    ptrace(PTRACE_SYSCALL, child, 0, 0);
    waitpid(child, &status, 0);
    hold_on_stdin();
  }
  ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK);
  fflush(stdout);
  int entry = 1;
  for (;;) {
    ptrace(PTRACE_SYSCALL, child, 0, 0);
    if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) break;
    if (status >> 16 == PTRACE_EVENT_FORK) {
      unsigned long grandchild = 0;
      ptrace(PTRACE_GETEVENTMSG, child, 0, &grandchild);
      int grandchild_status = 0;
      pid_t got = waitpid((pid_t)grandchild, &grandchild_status, __WALL);
      printf("fork event: the new child %s, its first stop %s\n", got == (pid_t)grandchild ? "reported" : "missing",
             WIFSTOPPED(grandchild_status) ? sigabbrev_np(WSTOPSIG(grandchild_status)) : "none");
      printf("DETACH the new child %ld\n", ptrace(PTRACE_DETACH, (pid_t)grandchild, 0, 0));
      fflush(stdout);
      ptrace(PTRACE_CONT, child, 0, 0);
      break;
    }
    if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
      printf("signal stop %s\n", sigabbrev_np(WSTOPSIG(status)));
      continue;
    }
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, child, 0, &regs);
    const long long nr = (long long)regs.orig_rax;
    if (entry && nr == SYS_getpid) {
      regs.orig_rax = -1;  // skipped
      ptrace(PTRACE_SETREGS, child, 0, &regs);
      printf("entry getpid: skipped\n");
    } else if (!entry && nr == -1) {
      printf("exit of the skipped call: rax was %s, now 4242\n", (long long)regs.rax == -ENOSYS ? "-ENOSYS" : "other");
      regs.rax = 4242;
      ptrace(PTRACE_SETREGS, child, 0, &regs);
    } else if (interesting(nr)) {
      if (entry) {
        printf("entry %lld: rax %s\n", nr, (long long)regs.rax == -ENOSYS ? "-ENOSYS" : "other");
      } else {
        printf("exit %lld: rax %s\n", nr, nr == SYS_sched_yield ? ((long long)regs.rax == 0 ? "0" : "other")
                                                                 : ((long long)regs.rax > 0 ? "a pid" : "other"));
      }
    }
    fflush(stdout);
    entry = !entry;
  }
  // On to its end: its SIGCHLD (the new child's exit) is a signal stop to let through.
  while (waitpid(child, &status, 0) == child && WIFSTOPPED(status)) {
    printf("signal stop %s\n", sigabbrev_np(WSTOPSIG(status)));
    fflush(stdout);
    ptrace(PTRACE_CONT, child, 0, WSTOPSIG(status));
  }
  printf("child: exited %d\n", WEXITSTATUS(status));
  return 0;
}
