// Atomic instructions with chess-trace's breakpoints before them change nothing natively visible.
// - SIGTRAP, which each breakpoint's int3 forces (unblocking it, resetting an ignored action to
//   SIG_DFL), stays as the program set it: blocked in the threads that blocked it, ignored.
// - An atomic instruction that faults, run out of line, faults at its own address: the handler
//   sees rip inside the function, and returning from it runs the instruction again, which then
//   succeeds.
// faithful-run-options: --sync-points atomics
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "faithful_helpers.h"

static atomic_long counter;
static long* page;
static volatile uintptr_t fault_rip;

__attribute__((noinline)) static int faulting_cas(long* word) {
  long expected = 0;
  return atomic_compare_exchange_strong((_Atomic long*)word, &expected, 42);
}

static void on_segv(int signal_number, siginfo_t* info, void* context) {
  (void)signal_number;
  (void)info;
  fault_rip = (uintptr_t)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
  mprotect(page, 4096, PROT_READ | PROT_WRITE);  // returning runs the instruction again
}

static void* add(void* arg) {
  for (int i = 0; i < 100; ++i) atomic_fetch_add(&counter, 1);
  return arg;
}

int main(void) {
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigaction(SIGTRAP, &ignore, NULL);
  sigset_t trap;
  sigemptyset(&trap);
  sigaddset(&trap, SIGTRAP);
  sigprocmask(SIG_BLOCK, &trap, NULL);

  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, add, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("counter %ld\n", atomic_load(&counter));
  print_signal_lines("after the threads: ");
  struct sigaction now;
  sigaction(SIGTRAP, NULL, &now);
  printf("SIGTRAP ignored: %s\n", now.sa_handler == SIG_IGN ? "yes" : "no");

  page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction segv = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
  sigaction(SIGSEGV, &segv, NULL);
  const int swapped = faulting_cas(page);
  const uintptr_t start = (uintptr_t)faulting_cas;
  printf("fault inside faulting_cas: %s\n", fault_rip >= start && fault_rip < start + 128 ? "yes" : "no");
  printf("swapped %d, value %ld\n", swapped, *page);
  return 0;
}
