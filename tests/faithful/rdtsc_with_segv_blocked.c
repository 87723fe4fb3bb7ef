// rdtsc executed while SIGSEGV is blocked, and while it is ignored, changes nothing natively.
// Under chess-trace the rdtsc faults (its trap), and the kernel's forced SIGSEGV unblocks
// SIGSEGV and resets its action to SIG_DFL; chess-trace must put both back. The program prints
// its signal lines after each rdtsc, then unblocks SIGSEGV and faults on purpose: its handler,
// still installed, must catch the fault.
// faithful-hold
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "faithful_helpers.h"

static sigjmp_buf recover;
static volatile int faults;

static void on_fault(int signal_number) {
  (void)signal_number;
  ++faults;
  siglongjmp(recover, 1);
}

static uint64_t read_counter(void) {
  uint32_t low, high;
  __asm__ __volatile__("rdtsc" : "=a"(low), "=d"(high));
  return ((uint64_t)high << 32) | low;
}

int main(int argc, char** argv) {
  struct sigaction caught = {.sa_handler = on_fault};
  sigaction(SIGSEGV, &caught, NULL);
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);

  // Blocked, with a handler: after the rdtsc it is still blocked and still caught.
  sigprocmask(SIG_BLOCK, &segv, NULL);
  (void)read_counter();
  print_signal_lines("blocked: ");
  hold_if_asked(argc, argv);
  sigprocmask(SIG_UNBLOCK, &segv, NULL);

  // Ignored: after the rdtsc it is still ignored.
  struct sigaction previous;
  struct sigaction ignored = {.sa_handler = SIG_IGN};
  sigaction(SIGSEGV, &ignored, &previous);
  (void)read_counter();
  print_signal_lines("ignored: ");
  sigaction(SIGSEGV, &previous, NULL);

  // A handler, blocked in between: the fault is caught.
  sigprocmask(SIG_BLOCK, &segv, NULL);
  (void)read_counter();
  sigprocmask(SIG_UNBLOCK, &segv, NULL);
  volatile char* page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sigsetjmp(recover, 1) == 0) {
    page[0] = 1;
    printf("no fault\n");
  }
  printf("faults caught: %d\n", faults);
  return 0;
}
