/* flock_cycle_buggy: a lock-order cycle between two processes, through flock.
 *
 * Bug: the parent takes file A's flock, then file B's; its child, after some work of its own,
 * takes B's, then A's. If the parent holds A when the child holds B, each process waits for the
 * other's lock for ever (the kernel's flock has no deadlock detection). Natively, and in the
 * non-preemptive schedule, the parent is done with both before the child gets there. The first
 * execution's relation has both dependencies (the file locks a process holds come from
 * /proc/locks); a directed execution pauses the parent at B while it holds A, lets the child
 * take B and stop at A, and lets both go.
 *
 * Fixed twin: flock_cycle_fixed.c (the child takes A before B too). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static void take(int fd) {
  if (flock(fd, LOCK_EX) != 0) exit(2);
}

static void give(int fd) { flock(fd, LOCK_UN); }

__attribute__((noinline)) static void child_work(const char* a_path, const char* b_path) {
  /* Descriptions of its own: a flock belongs to the open file description. */
  const int a = open(a_path, O_RDWR | O_CLOEXEC), b = open(b_path, O_RDWR | O_CLOEXEC);
  if (a < 0 || b < 0) exit(2);
  for (int i = 0; i < 5; ++i) getppid(); /* its own work first */
#ifdef CONSISTENT_ORDER
  take(a);
  take(b);
#else
  take(b);
  take(a); /* B, then A: the inversion */
#endif
  give(a);
  give(b);
}

__attribute__((noinline)) static void parent_work(const char* a_path, const char* b_path) {
  const int a = open(a_path, O_RDWR | O_CLOEXEC), b = open(b_path, O_RDWR | O_CLOEXEC);
  if (a < 0 || b < 0) exit(2);
  take(a);
  take(b);
  give(b);
  give(a);
}

int main(void) {
  char a_path[] = "/tmp/flock-cycle-a-XXXXXX", b_path[] = "/tmp/flock-cycle-b-XXXXXX";
  const int fa = mkstemp(a_path), fb = mkstemp(b_path);
  if (fa < 0 || fb < 0) return 2;
  close(fa);
  close(fb);
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    child_work(a_path, b_path);
    _exit(0);
  }
  parent_work(a_path, b_path);
  int status = 0;
  waitpid(child, &status, 0);
  unlink(a_path);
  unlink(b_path);
  printf("both done\n");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
