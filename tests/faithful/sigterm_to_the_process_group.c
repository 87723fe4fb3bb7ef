// SIGTERM to the whole process group (Ctrl-C at a terminal signals the whole foreground group
// likewise): the program's processes get it as chess-trace does. The parent waits for a child
// that stopped itself while another child yields in a loop; SIGTERM kills all three, so each
// reports its exit at about the moment chess-trace stops. None may be left behind, stopped at
// its exit, for chess-trace to wait on.
// faithful-hold-group
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
  pid_t yielder = fork();
  if (yielder == 0) {
    for (;;) sched_yield();
  }
  pid_t stopped = fork();
  if (stopped == 0) {
    raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  waitpid(stopped, &status, WUNTRACED);
  printf("child stopped by signal %d\n", WIFSTOPPED(status) ? WSTOPSIG(status) : 0);
  if (hold) {
    printf("holding\n");
    fflush(stdout);
    waitpid(stopped, &status, 0);  // the most delicate point: a stopped child, a busy one
  }
  kill(stopped, SIGKILL);
  kill(yielder, SIGKILL);
  waitpid(stopped, &status, 0);
  printf("stopped child: killed by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  waitpid(yielder, &status, 0);
  printf("yielding child: killed by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 0;
}
