// A parent tracing its child (PTRACE_TRACEME): the child's signal-delivery-stops reach the
// parent's waitpid, the parent reads and changes the child's registers and memory there
// (GETREGS, PEEKDATA, POKEDATA, GETSIGINFO), suppresses one signal and delivers another, sees
// the exit event (PTRACE_O_TRACEEXIT, GETEVENTMSG), and kills (PTRACE_KILL) and detaches
// (PTRACE_DETACH) tracees in their stops. Requests on a tracee that is not stopped, or not
// traced, fail with ESRCH; a second TRACEME with EPERM.
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

static volatile long shared_word = 11;

static void on_usr1(int signal_number) {
  printf("child: SIGUSR1 handler (%d), word %ld\n", signal_number, shared_word);
  fflush(stdout);
}

static void print_status(const char* what, int status) {
  if (WIFEXITED(status)) {
    printf("%s: exited %d\n", what, WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
  } else if (WIFSTOPPED(status)) {
    printf("%s: stopped by %s, event %d\n", what, sigabbrev_np(WSTOPSIG(status)), status >> 16);
  } else {
    printf("%s: status %#x\n", what, status);
  }
  fflush(stdout);
}

static pid_t traced_child(void (*body)(void)) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    long first = ptrace(PTRACE_TRACEME, 0, 0, 0);
    long again = ptrace(PTRACE_TRACEME, 0, 0, 0);
    int again_errno = errno;
    printf("child: TRACEME %ld, again %ld (%s)\n", first, again, strerrorname_np(again_errno));
    fflush(stdout);
    raise(SIGSTOP);
    body();
    _exit(0);
  }
  return child;
}

static void signals_then_exit(void) {
  signal(SIGUSR1, on_usr1);
  printf("child: after the SIGSTOP stop, word %ld\n", shared_word);
  fflush(stdout);
  raise(SIGUSR1);
  raise(SIGUSR2);  // suppressed by the tracer, so it does not kill
  printf("child: SIGUSR2 suppressed\n");
  fflush(stdout);
  _exit(7);
}

static void runs_on(void) { _exit(3); }

static void wait_and_print(pid_t child, const char* what) {
  int status = 0;
  pid_t got = waitpid(child, &status, 0);
  if (got != child) {
    printf("%s: waitpid %d (%s)\n", what, got, strerrorname_np(errno));
    exit(1);
  }
  print_status(what, status);
}

int main(int argc, char** argv) {
  const int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
  pid_t child = traced_child(signals_then_exit);
  wait_and_print(child, "first stop");
  if (hold) {
    hold_on_stdin();
  }
  struct user_regs_struct regs;
  long result = ptrace(PTRACE_GETREGS, child, 0, &regs);
  printf("GETREGS %ld, in syscall %lld (tgkill %d), returned %lld\n", result, (long long)regs.orig_rax, SYS_tgkill,
         (long long)regs.rax);
  errno = 0;
  long word = ptrace(PTRACE_PEEKDATA, child, &shared_word, 0);
  // The tracee's own registers, changed: the word it returns from raise() (unused) is 0 anyway.
  regs.rax = 0;
  printf("SETREGS %ld\n", ptrace(PTRACE_SETREGS, child, 0, &regs));
  printf("PEEKDATA %ld (%s)\n", word, strerrorname_np(errno));
  printf("POKEDATA %ld\n", ptrace(PTRACE_POKEDATA, child, &shared_word, (void*)42));
  printf("SETOPTIONS %ld\n", ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACEEXIT));
  fflush(stdout);
  ptrace(PTRACE_CONT, child, 0, 0);  // the SIGSTOP is suppressed
  wait_and_print(child, "second stop");
  siginfo_t info;
  memset(&info, 0, sizeof info);
  result = ptrace(PTRACE_GETSIGINFO, child, 0, &info);
  printf("GETSIGINFO %ld: %s, code %d, from %s\n", result, sigabbrev_np(info.si_signo), info.si_code,
         info.si_pid == child ? "itself" : "elsewhere");
  fflush(stdout);
  ptrace(PTRACE_CONT, child, 0, SIGUSR1);  // delivered: the handler runs
  wait_and_print(child, "third stop");
  ptrace(PTRACE_CONT, child, 0, 0);  // SIGUSR2 suppressed
  wait_and_print(child, "fourth stop");
  unsigned long message = 0;
  result = ptrace(PTRACE_GETEVENTMSG, child, 0, &message);
  printf("GETEVENTMSG %ld: %#lx\n", result, message);
  fflush(stdout);
  ptrace(PTRACE_CONT, child, 0, 0);
  wait_and_print(child, "end");
  result = ptrace(PTRACE_CONT, child, 0, 0);
  printf("CONT after the end %ld (%s)\n", result, strerrorname_np(errno));

  child = traced_child(runs_on);
  wait_and_print(child, "to kill");
  printf("KILL %ld\n", ptrace(PTRACE_KILL, child, 0, 0));
  wait_and_print(child, "killed");

  child = traced_child(runs_on);
  wait_and_print(child, "to detach");
  printf("DETACH %ld\n", ptrace(PTRACE_DETACH, child, 0, 0));
  result = ptrace(PTRACE_CONT, child, 0, 0);
  printf("CONT after DETACH %ld (%s)\n", result, strerrorname_np(errno));
  wait_and_print(child, "detached");

  pid_t untraced = fork();
  if (untraced == 0) _exit(5);
  result = ptrace(PTRACE_CONT, untraced, 0, 0);
  printf("CONT untraced %ld (%s)\n", result, strerrorname_np(errno));
  wait_and_print(untraced, "untraced");
  return 0;
}
