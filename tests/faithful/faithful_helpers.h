// What the faithful programs share; header-only, because each program is one .c file.
#pragma once

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

// Prints the signal lines of /proc/self/status (SigBlk, SigIgn, SigCgt), each after `prefix`.
static inline void print_signal_lines(const char* prefix) {
  FILE* status = fopen("/proc/self/status", "r");
  if (status == NULL) {
    perror("/proc/self/status");
    exit(2);
  }
  char line[256];
  while (fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "SigBlk:", 7) == 0 || strncmp(line, "SigIgn:", 7) == 0 || strncmp(line, "SigCgt:", 7) == 0) {
      printf("%s%s", prefix, line);
    }
  }
  fclose(status);
  fflush(stdout);
}

// With `hold` as the first argument (faithful-hold): says so, and blocks here for ever.
static inline void hold_if_asked(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "hold") != 0) return;
  printf("holding\n");
  fflush(stdout);
  for (;;) pause();
}

// Says `holding` and blocks for ever, waiting on the outside world: its stdin, a pipe the sigterm
// check keeps open and never writes. For a held state in which the program has a child it could
// wait for — a tracee in a ptrace-stop — where pause() would be a deadlock that chess-trace
// reports at once, before any SIGTERM is sent.
static inline void hold_on_stdin(void) {
  printf("holding\n");
  fflush(stdout);
  char byte;
  while (read(0, &byte, 1) > 0) {
  }
  for (;;) pause();
}

// Runs `body` in a fork child and waits for it.
static inline void in_child(void (*body)(void)) {
  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    body();
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
}

// rdtsc, which chess-trace traps with a forced SIGSEGV.
static inline void read_counter(void) {
  unsigned int low, high;
  __asm__ __volatile__("rdtsc" : "=a"(low), "=d"(high));
}

// A SIGSEGV handler that recovers from a fault made on purpose (fault_on_purpose).
static sigjmp_buf fault_recovery __attribute__((unused));
static volatile int faults_caught __attribute__((unused));

static inline void recover_from_fault(int signal_number) {
  (void)signal_number;
  ++faults_caught;
  siglongjmp(fault_recovery, 1);
}

static inline void catch_faults(void) {
  struct sigaction caught = {.sa_handler = recover_from_fault};
  sigaction(SIGSEGV, &caught, NULL);
}

// Writes to a page it may not write, and says whether the handler caught the fault.
static inline void fault_on_purpose(void) {
  volatile char* page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sigsetjmp(fault_recovery, 1) == 0) {
    page[0] = 1;
    printf("no fault\n");
  }
  printf("faults caught: %d\n", faults_caught);
}
