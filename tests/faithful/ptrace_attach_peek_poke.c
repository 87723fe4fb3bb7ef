// A tracer attaching to a running child (PTRACE_ATTACH): the child, blocked reading a pipe,
// stops with SIGSTOP; the tracer reads and changes a word of its memory (PEEKDATA, POKEDATA),
// lets it go, sees a signal sent to it stop it (SIGUSR1's signal-delivery-stop) and suppresses
// that signal, so the child's handler never runs; it detaches, and the child, whose read was
// restarted across the stop, reads the tracer's line and prints the word the tracer wrote.
// faithful-hold
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faithful_helpers.h"

static volatile long word = 1111;
static volatile sig_atomic_t handled;

static void on_usr1(int signal_number) {
  (void)signal_number;
  handled = 1;
}

// A request that should fail, and how.
static void refused(const char* what, long result) {
  const int error = errno;
  printf("%s: %ld (%s)\n", what, result, result == -1 ? strerrorname_np(error) : "no error");
}

static void describe(const char* what, int status) {
  if (WIFSTOPPED(status)) {
    printf("%s: stopped by %s\n", what, sigabbrev_np(WSTOPSIG(status)));
  } else if (WIFEXITED(status)) {
    printf("%s: exited %d\n", what, WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
  }
  fflush(stdout);
}

int main(int argc, char** argv) {
  int line[2], ready[2];
  if (pipe(line) != 0 || pipe(ready) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGUSR1, on_usr1);
    if (write(ready[1], "r", 1) != 1) _exit(2);
    char text[16] = {0};
    ssize_t got;
    // A read that SIGSTOP and the tracer's stops interrupt: restarted by the kernel each time.
    while ((got = read(line[0], text, sizeof text - 1)) < 0 && errno == EINTR) {
    }
    printf("child: read \"%s\" (%zd bytes), word %ld, handler %s\n", text, got, word, handled ? "ran" : "did not run");
    fflush(stdout);
    _exit(0);
  }
  char byte;
  if (read(ready[0], &byte, 1) != 1) return 2;
  int status = 0;
  printf("ATTACH %ld\n", ptrace(PTRACE_ATTACH, child, 0, 0));
  if (waitpid(child, &status, 0) != child) return 2;
  describe("after ATTACH", status);
  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    hold_on_stdin();  // the child in its attach stop
  }
  errno = 0;
  const long before = ptrace(PTRACE_PEEKDATA, child, (void*)&word, 0);
  printf("PEEKDATA word: %ld (errno %d)\n", before, errno);
  printf("POKEDATA %ld\n", ptrace(PTRACE_POKEDATA, child, (void*)&word, (void*)2222L));
  refused("PEEKDATA of a process not traced", ptrace(PTRACE_PEEKDATA, getppid(), (void*)&word, 0));
  printf("CONT %ld\n", ptrace(PTRACE_CONT, child, 0, 0));
  kill(child, SIGUSR1);
  if (waitpid(child, &status, 0) != child) return 2;
  describe("after SIGUSR1", status);
  siginfo_t info;
  memset(&info, 0, sizeof info);
  ptrace(PTRACE_GETSIGINFO, child, 0, &info);
  printf("GETSIGINFO: %s from %s\n", sigabbrev_np(info.si_signo), info.si_pid == getpid() ? "the tracer" : "elsewhere");
  // Let it go without the signal, then detach at the next stop the tracer makes.
  printf("CONT without the signal %ld\n", ptrace(PTRACE_CONT, child, 0, 0));
  refused("INTERRUPT of a tracee not seized", ptrace(PTRACE_INTERRUPT, child, 0, 0));
  kill(child, SIGSTOP);
  if (waitpid(child, &status, 0) != child) return 2;
  describe("after SIGSTOP", status);
  printf("DETACH %ld\n", ptrace(PTRACE_DETACH, child, 0, 0));
  refused("DETACH again", ptrace(PTRACE_DETACH, child, 0, 0));
  fflush(stdout);
  if (write(line[1], "hello", 5) != 5) return 2;
  if (waitpid(child, &status, 0) != child) return 2;
  describe("child", status);
  return 0;
}
