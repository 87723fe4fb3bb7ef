// What the faithful programs share; header-only, because each program is one .c file.
#pragma once

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
