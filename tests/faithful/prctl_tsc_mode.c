// PR_GET_TSC answers what the program set (PR_TSC_ENABLE until it sets something), whatever
// chess-trace's own rdtsc trap; a program that sets PR_TSC_SIGSEGV gets a SIGSEGV at its rdtsc,
// which its handler catches, and its fork child inherits the mode. PR_TSC_ENABLE again: rdtsc
// reads the counter without a signal.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "faithful_helpers.h"

static volatile int faults;
static volatile int fault_code;

static void skip_rdtsc(int signal_number, siginfo_t* info, void* context) {
  (void)signal_number;
  ++faults;
  fault_code = info->si_code;
  ((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP] += 2;
}

static int tsc_mode(void) {
  int mode = -1;
  if (prctl(PR_GET_TSC, &mode) != 0) perror("PR_GET_TSC");
  return mode;
}

// A fork child inherits the mode.
static void child_reads_counter(void) {
  printf("child: PR_GET_TSC %d\n", tsc_mode());
  read_counter();
  printf("child after rdtsc: %d SIGSEGV\n", faults);
}

int main(int argc, char** argv) {
  printf("at start: PR_GET_TSC %d\n", tsc_mode());
  printf("PR_SET_TSC 7: %d\n", prctl(PR_SET_TSC, 7));
  struct sigaction skip = {.sa_sigaction = skip_rdtsc, .sa_flags = SA_SIGINFO};
  sigaction(SIGSEGV, &skip, NULL);
  printf("PR_SET_TSC PR_TSC_SIGSEGV: %d\n", prctl(PR_SET_TSC, PR_TSC_SIGSEGV));
  printf("now: PR_GET_TSC %d\n", tsc_mode());
  read_counter();
  printf("after rdtsc: %d SIGSEGV, si_code %d\n", faults, fault_code);
  in_child(child_reads_counter);
  hold_if_asked(argc, argv);
  printf("PR_SET_TSC PR_TSC_ENABLE: %d\n", prctl(PR_SET_TSC, PR_TSC_ENABLE));
  read_counter();
  printf("at end: PR_GET_TSC %d, %d SIGSEGV\n", tsc_mode(), faults);
  return 0;
}
