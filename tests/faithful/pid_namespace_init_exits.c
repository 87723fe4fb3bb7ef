// A pid namespace's init that ends while its namespace is full: its main thread leaves first
// (pthread_exit), then its last thread calls exit(66), with a child of 3 threads alive, a
// grandchild orphaned to it, and a zombie it never reaped. Its exit kills the namespace, and the
// kernel reaps all of it before the init's parent sees it exit. The parent prints how the init
// ended and that nothing of the namespace is left (the end of a pipe they all hold closes).
// Without the privilege to make a pid namespace, the program does by hand what the namespace
// would have done, so that both runs print the same.
// faithful-hold
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int namespaced;
static int hold;
static int report[2];  // the init's child and the orphan, for the parent
static pid_t threaded, orphan;

static void* sleeper(void* unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static void* last_thread(void* unused) {
  (void)unused;
  if (hold) {
    // The most delicate point: the init's main thread gone, its namespace alive, the parent
    // waiting for the init.
    printf("holding\n");
    fflush(stdout);
    for (;;) pause();
  }
  if (!namespaced) {
    // Not the init of anything: what its exit would have killed is killed by hand.
    kill(threaded, SIGKILL);
    kill(orphan, SIGKILL);
  }
  exit(66);
}

int main(int argc, char** argv) {
  hold = argc > 1 && strcmp(argv[1], "hold") == 0;
  namespaced = unshare(CLONE_NEWPID) == 0;
  int alive[2];
  if (pipe(report) != 0 || pipe(alive) != 0) return 2;
  pid_t init = fork();
  if (init < 0) return 2;
  if (init == 0) {
    close(alive[0]);
    threaded = fork();
    if (threaded == 0) {
      pthread_t thread;
      for (int i = 0; i < 2; ++i) pthread_create(&thread, NULL, sleeper, NULL);
      sleeper(NULL);
    }
    pid_t middle = fork();
    if (middle == 0) {
      pid_t grandchild = fork();
      if (grandchild == 0) sleeper(NULL);
      (void)!write(report[1], &grandchild, sizeof grandchild);
      _exit(0);  // its child is orphaned to the init
    }
    if (read(report[0], &orphan, sizeof orphan) != sizeof orphan) _exit(2);
    int status;
    waitpid(middle, &status, 0);
    pid_t zombie = fork();
    if (zombie == 0) _exit(0);
    printf("init: a child with 3 threads, an orphan and a zombie in its namespace\n");
    fflush(stdout);
    pthread_t thread;
    pthread_create(&thread, NULL, last_thread, NULL);
    pthread_exit(NULL);
  }
  close(alive[1]);
  int status = 0;
  while (waitpid(init, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) {
    printf("init: exited %d\n", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    printf("init: killed by signal %d\n", WTERMSIG(status));
  }
  char byte;
  printf("its namespace: %s\n", read(alive[0], &byte, 1) == 0 ? "all gone" : "something wrote");
  printf("children left: %s\n", waitpid(-1, &status, WNOHANG) < 0 ? "none" : "some");
  return 0;
}
