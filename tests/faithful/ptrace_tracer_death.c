// A tracer that exits while its tracee is in a signal-delivery-stop: the tracee goes on without
// that signal — a SIGSTOP does not stop it, a caught SIGUSR1's handler does not run — and with
// PTRACE_O_EXITKILL it is killed instead.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int report[2];

static void on_usr1(int signal_number) {
  printf("child: handler of %s\n", sigabbrev_np(signal_number));
  fflush(stdout);
}

static void traced_then_orphaned(int signal_number, int exit_kill) {
  fflush(stdout);
  pid_t tracer = fork();
  if (tracer == 0) {
    pid_t child = fork();
    if (child == 0) {
      signal(SIGUSR1, on_usr1);
      ptrace(PTRACE_TRACEME, 0, 0, 0);
      raise(signal_number);
      char line = 'c';
      if (write(report[1], &line, 1) != 1) _exit(2);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (exit_kill) ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_EXITKILL);
    printf("tracer: saw %s, exits\n", sigabbrev_np(WSTOPSIG(status)));
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(tracer, &status, 0);
  if (exit_kill) {
    printf("main: the tracer exited %d\n", WEXITSTATUS(status));
    return;
  }
  char line = 0;
  printf("main: the tracee %s\n", read(report[0], &line, 1) == 1 ? "went on" : "did not go on");
  fflush(stdout);
}

int main(void) {
  if (pipe(report) != 0) return 2;
  traced_then_orphaned(SIGSTOP, 0);
  traced_then_orphaned(SIGUSR1, 0);
  traced_then_orphaned(SIGSTOP, 1);
  return 0;
}
