// The tracer's SIGCHLD for its tracee's stops: a handler sees CLD_TRAPPED with the tracee's pid
// and the stop's signal, for a signal-delivery-stop and for an interrupt's PTRACE_EVENT_STOP
// (SIGTRAP); a second stop while the first SIGCHLD is still pending (blocked) adds none.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t seen, code, status, from;

static void on_sigchld(int signal_number, siginfo_t* info, void* context) {
  (void)signal_number;
  (void)context;
  ++seen;
  code = info->si_code;
  status = info->si_status;
  from = info->si_pid;
}

static const char* code_name(int c) {
  return c == CLD_TRAPPED ? "CLD_TRAPPED" : c == CLD_EXITED ? "CLD_EXITED" : c == CLD_KILLED ? "CLD_KILLED" : "other";
}

static void show(const char* what, pid_t child) {
  printf("%s: %d SIGCHLD, %s (%d), status %d, from the child: %s\n", what, (int)seen, code_name(code), (int)code,
         (int)status, from == child ? "yes" : "no");
  seen = 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_sigchld;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGCHLD, &action, NULL);
  sigset_t sigchld;
  sigemptyset(&sigchld);
  sigaddset(&sigchld, SIGCHLD);

  int go[2];
  if (pipe(go) != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(2);
    raise(SIGUSR1);
    for (;;) pause();
  }
  ptrace(PTRACE_SEIZE, child, 0, 0);
  if (write(go[1], "x", 1) != 1) return 1;
  int stop = 0;
  waitpid(child, &stop, 0);
  show("first stop", child);

  sigprocmask(SIG_BLOCK, &sigchld, NULL);
  ptrace(PTRACE_CONT, child, 0, 0);
  ptrace(PTRACE_INTERRUPT, child, 0, 0);
  waitpid(child, &stop, 0);
  ptrace(PTRACE_CONT, child, 0, 0);
  ptrace(PTRACE_INTERRUPT, child, 0, 0);
  waitpid(child, &stop, 0);
  sigprocmask(SIG_UNBLOCK, &sigchld, NULL);
  show("two interrupts, SIGCHLD blocked", child);

  ptrace(PTRACE_KILL, child, 0, 0);
  waitpid(child, &stop, 0);
  printf("killed by %s\n", sigabbrev_np(WTERMSIG(stop)));
  return 0;
}
