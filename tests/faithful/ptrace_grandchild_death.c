// A tracer that is not its tracee's parent (PTRACE_SEIZE of a grandchild) sees the tracee's
// death in its own waitpid, as the kernel reports it to the tracer first; the real parent reaps
// it afterwards, as usual.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0) {
      for (;;) pause();
    }
    if (write(fds[1], &grandchild, sizeof grandchild) != sizeof grandchild) _exit(2);
    int status = 0;
    if (waitpid(grandchild, &status, 0) != grandchild) _exit(3);
    _exit(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status));
  }
  pid_t grandchild = 0;
  if (read(fds[0], &grandchild, sizeof grandchild) != sizeof grandchild) return 2;
  printf("SEIZE the grandchild %ld\n", ptrace(PTRACE_SEIZE, grandchild, 0, 0));
  printf("waitpid without a stop, WNOHANG: %d\n", waitpid(grandchild, NULL, WNOHANG | __WALL));
  kill(grandchild, SIGKILL);
  int status = 0;
  pid_t got = waitpid(grandchild, &status, __WALL);
  printf("the tracer's waitpid: %s, %s\n", got == grandchild ? "the grandchild" : strerrorname_np(errno),
         WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : "not killed");
  fflush(stdout);
  waitpid(child, &status, 0);
  printf("the parent reaped it: killed by %s\n", sigabbrev_np(WEXITSTATUS(status)));
  return 0;
}
