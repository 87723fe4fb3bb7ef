// A blocked and an ignored SIGSEGV survive exec (the kernel keeps the mask and SIG_IGN), even
// though the dynamic loader of the new image executes rdtsc, which chess-trace traps with a
// forced SIGSEGV that would unblock SIGSEGV and reset it to SIG_DFL. The new image prints its
// signal lines of /proc/self/status and what sigprocmask and sigaction say.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faithful_helpers.h"

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "after-exec") != 0) {
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    sigprocmask(SIG_BLOCK, &segv, NULL);
    signal(SIGSEGV, SIG_IGN);
    // `hold MARKER` goes on to the new image, marker and all.
    char* again[] = {argv[0], "after-exec", argc > 2 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL, NULL};
    execv("/proc/self/exe", again);
    perror("execv");
    return 2;
  }
  sigset_t now;
  sigprocmask(SIG_SETMASK, NULL, &now);
  struct sigaction action;
  sigaction(SIGSEGV, NULL, &action);
  printf("after exec: SIGSEGV blocked %d, ignored %d\n", sigismember(&now, SIGSEGV),
         action.sa_handler == SIG_IGN);
  print_signal_lines("");
  hold_if_asked(argc - 1, argv + 1);
  return 0;
}
