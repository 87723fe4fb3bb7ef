// rdtsc inside a signal handler whose sa_mask blocks SIGSEGV, and after a handler that blocked
// SIGSEGV itself and returned (rt_sigreturn gives back the mask of before). Natively the rdtsc
// changes nothing; under chess-trace its trap's forced SIGSEGV would unblock SIGSEGV and reset
// its handler, so chess-trace follows the mask a handler runs under and the one its return
// restores. The program prints its signal lines in and after the handlers, then faults on
// purpose: its SIGSEGV handler must catch it.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>

#include "faithful_helpers.h"

// SIGUSR1: runs with SIGSEGV blocked by its sa_mask.
static void masked_handler(int signal_number) {
  (void)signal_number;
  read_counter();
  print_signal_lines("in handler: ");
}

// SIGUSR2: blocks SIGSEGV itself; its return gives back the mask of before.
static void blocking_handler(int signal_number) {
  (void)signal_number;
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  sigprocmask(SIG_BLOCK, &segv, NULL);
}

int main(int argc, char** argv) {
  catch_faults();
  struct sigaction masked = {.sa_handler = masked_handler};
  sigaddset(&masked.sa_mask, SIGSEGV);
  sigaction(SIGUSR1, &masked, NULL);
  struct sigaction blocking = {.sa_handler = blocking_handler};
  sigaction(SIGUSR2, &blocking, NULL);

  raise(SIGUSR1);
  print_signal_lines("after the masked handler: ");
  raise(SIGUSR2);
  read_counter();
  print_signal_lines("after the blocking handler: ");
  hold_if_asked(argc, argv);

  fault_on_purpose();
  return 0;
}
