// Attaching to a job-stopped child: PTRACE_ATTACH traps it in its group-stop (a plain SIGSTOP
// stop without siginfo), and the SIGSTOP the attach sent comes next as a signal-delivery-stop;
// PTRACE_SEIZE traps it in a PTRACE_EVENT_STOP group-stop with a siginfo. Let go, either runs.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop_of(pid_t pid, const char* what) {
  int status = 0;
  if (waitpid(pid, &status, __WALL) != pid) {
    printf("%s: waitpid failed\n", what);
  } else if (WIFSTOPPED(status)) {
    printf("%s: stopped, signal %s, event %d\n", what, sigabbrev_np(WSTOPSIG(status)), status >> 16);
  } else if (WIFEXITED(status)) {
    printf("%s: exited %d\n", what, WEXITSTATUS(status));
  } else {
    printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
  }
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (!WIFSTOPPED(status)) return;
  if (ptrace(PTRACE_GETSIGINFO, pid, 0, &info) != 0) {
    printf("  GETSIGINFO: %s\n", strerrorname_np(errno));
  } else {
    printf("  GETSIGINFO: %s, code %#x\n", sigabbrev_np(info.si_signo), info.si_code);
  }
}

static void attach_to_stopped(long how) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    kill(getpid(), SIGSTOP);
    _exit(77);
  }
  int status = 0;
  waitpid(child, &status, WUNTRACED);
  printf("%s a child stopped by %s\n", how == PTRACE_ATTACH ? "ATTACH to" : "SEIZE of", sigabbrev_np(WSTOPSIG(status)));
  printf("  request: %ld\n", ptrace(how, child, 0, 0));
  stop_of(child, "first stop");
  ptrace(PTRACE_CONT, child, 0, 0);
  // Let go, it runs on (the seized one has no SIGSTOP to come).
  if (how == PTRACE_ATTACH) {
    stop_of(child, "then");
    ptrace(PTRACE_CONT, child, 0, 0);
  }
  stop_of(child, "end");
}

int main(void) {
  attach_to_stopped(PTRACE_ATTACH);
  attach_to_stopped(PTRACE_SEIZE);
  return 0;
}
