// A pid namespace's init killed (SIGKILL from its parent, in the namespace above) while its
// namespace holds a process with threads, a sleeper whose pid there (3) is the init's in the
// namespace above, and a zombie it has not reaped: the init's death kills
// them all, and the kernel reaps them before the init's parent sees it die. Its parent prints how
// the init ended and that nothing of the namespace is left (the end of a pipe they all hold
// closes). Without the privilege to make a pid namespace, the program does by hand what the
// namespace would have done, so that both runs print the same.
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

static void* sleeper(void* unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

int main(int argc, char** argv) {
  const int hold = argc > 1 && strcmp(argv[1], "hold") == 0;
  const int namespaced = unshare(CLONE_NEWPID) == 0;
  int ready[2], alive[2];
  if (pipe(ready) != 0 || pipe(alive) != 0) return 2;
  pid_t init = fork();
  if (init < 0) return 2;
  if (init == 0) {
    close(ready[0]);
    close(alive[0]);
    pid_t threaded = fork();
    if (threaded == 0) {
      pthread_t thread;
      for (int i = 0; i < 3; ++i) pthread_create(&thread, NULL, sleeper, NULL);
      sleeper(NULL);
    }
    pid_t sleeping = fork();
    if (sleeping == 0) sleeper(NULL);
    pid_t zombie = fork();
    if (zombie == 0) _exit(0);
    // Killed by hand without a namespace.
    (void)!write(ready[1], &threaded, sizeof threaded);
    (void)!write(ready[1], &sleeping, sizeof sleeping);
    for (;;) pause();
  }
  close(ready[1]);
  close(alive[1]);
  pid_t threaded = 0, sleeping = 0;
  if (read(ready[0], &threaded, sizeof threaded) != sizeof threaded ||
      read(ready[0], &sleeping, sizeof sleeping) != sizeof sleeping) {
    return 2;
  }
  printf("init: its namespace holds a process with 4 threads, a sleeper and a zombie\n");
  fflush(stdout);
  kill(init, SIGKILL);
  if (!namespaced) {
    // Not the init of anything: its descendants live on.
    kill(threaded, SIGKILL);
    kill(sleeping, SIGKILL);
  }
  if (hold) {
    // The most delicate point: the init dying, its namespace being killed and reaped.
    printf("holding\n");
    fflush(stdout);
    for (;;) pause();
  }
  int status = 0;
  while (waitpid(init, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) {
    printf("init: killed by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else {
    printf("init: status %#x\n", status);
  }
  char byte;
  printf("its namespace: %s\n", read(alive[0], &byte, 1) == 0 ? "all gone" : "something wrote");
  printf("children left: %s\n", waitpid(-1, &status, WNOHANG) < 0 ? "none" : "some");
  return 0;
}
