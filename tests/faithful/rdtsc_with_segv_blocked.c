// rdtsc executed while SIGSEGV is blocked, and while it is ignored, changes nothing natively.
// Under chess-trace the rdtsc faults (its trap), and the kernel's forced SIGSEGV unblocks
// SIGSEGV and resets its action to SIG_DFL; chess-trace must put both back. The program prints
// its signal lines after each rdtsc, then unblocks SIGSEGV and faults on purpose: its handler,
// still installed, must catch the fault.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faithful_helpers.h"

int main(int argc, char** argv) {
  catch_faults();
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);

  // Blocked, with a handler: after the rdtsc it is still blocked and still caught.
  sigprocmask(SIG_BLOCK, &segv, NULL);
  read_counter();
  print_signal_lines("blocked: ");
  hold_if_asked(argc, argv);
  sigprocmask(SIG_UNBLOCK, &segv, NULL);

  // Ignored: after the rdtsc it is still ignored.
  struct sigaction previous;
  struct sigaction ignored = {.sa_handler = SIG_IGN};
  sigaction(SIGSEGV, &ignored, &previous);
  read_counter();
  print_signal_lines("ignored: ");
  sigaction(SIGSEGV, &previous, NULL);

  // A handler, blocked in between: the fault is caught.
  sigprocmask(SIG_BLOCK, &segv, NULL);
  read_counter();
  sigprocmask(SIG_UNBLOCK, &segv, NULL);
  fault_on_purpose();
  return 0;
}
