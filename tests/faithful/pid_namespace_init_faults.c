// A pid namespace's init that dereferences NULL dies of SIGSEGV, as any process would: its
// namespace's init is immune only to the signals its namespace sends it, not to its own faults.
// Its parent's waitpid sees the signal (and whether it dumped core) and its SIGCHLD handler
// runs. (Traced, the kernel keeps the init immune, so it would fault forever.) The init first
// forks a child into its namespace, which its death kills. Without the privilege to make a pid
// namespace, the program prints what a namespace would have shown, so that both runs agree.
// faithful-hold
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_signals = 0;

static void on_child(int signal_number) {
  (void)signal_number;
  ++child_signals;
}

static void print_end(const char* who, int status) {
  if (WIFSIGNALED(status)) {
    printf("%s: killed by signal %d (%s), core dumped %d\n", who, WTERMSIG(status), strsignal(WTERMSIG(status)),
           WCOREDUMP(status) ? 1 : 0);
  } else if (WIFEXITED(status)) {
    printf("%s: exited %d\n", who, WEXITSTATUS(status));
  } else {
    printf("%s: status %#x\n", who, status);
  }
}

int main(int argc, char** argv) {
  const int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
  // No core file: whether one is written must not depend on the machine's core_pattern.
  const struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  struct sigaction caught = {.sa_handler = on_child};
  sigaction(SIGCHLD, &caught, NULL);
  const int namespaced = unshare(CLONE_NEWPID) == 0;
  int ready[2];
  if (pipe(ready) != 0) return 2;
  pid_t init = fork();
  if (init < 0) return 2;
  if (init == 0) {
    close(ready[0]);
    const int my_pid = namespaced ? getpid() : 1;
    pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    printf("init: pid %d, its child pid %d\n", my_pid, namespaced ? child : 2);
    fflush(stdout);
    if (hold) {
      // The most delicate point: the init and its child alive, the parent waiting.
      (void)!write(ready[1], "h", 1);
      for (;;) pause();
    }
    if (!namespaced) kill(child, SIGKILL);  // what the init's death would have done
    volatile int* nowhere = NULL;
    *nowhere = 1;
    printf("init: survived its fault\n");
    return 3;
  }
  close(ready[1]);
  if (hold) {
    char byte;
    if (read(ready[0], &byte, 1) == 1) {
      printf("holding\n");
      fflush(stdout);
    }
  }
  int status = 0;
  while (waitpid(init, &status, 0) < 0) {
  }
  print_end("init", status);
  printf("SIGCHLD handled: %s\n", child_signals > 0 ? "yes" : "no");
  printf("children left: %s\n", waitpid(-1, &status, WNOHANG) < 0 ? "none" : "some");
  return 0;
}
