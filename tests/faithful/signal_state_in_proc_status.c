// The signal lines of /proc/self/status (SigBlk, SigIgn, SigCgt) are the program's own: a
// blocked, an ignored and a caught signal each show as the program set them, in the first
// process and in a child it forks. chess-trace's own signal handling must leave no trace there.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faithful_helpers.h"

static void on_signal(int signal_number) { (void)signal_number; }

int main(int argc, char** argv) {
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigaddset(&blocked, SIGRTMIN + 3);
  sigprocmask(SIG_BLOCK, &blocked, NULL);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  struct sigaction caught = {.sa_handler = on_signal};
  sigaction(SIGUSR2, &caught, NULL);
  print_signal_lines("parent ");

  pid_t child = fork();
  if (child == 0) {
    print_signal_lines("child ");
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("child exited %d\n", WEXITSTATUS(status));
  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    printf("holding\n");
    fflush(stdout);
    for (;;) pause();
  }
  return 0;
}
