/* A file-lock ABBA deadlock between two processes: the parent takes flock(LOCK_EX) on file A,
 * its forked child on file B (each on descriptions it opened itself); a pipe handshake makes
 * sure both hold their first lock; then the parent waits for B and the child for A. Natively
 * this hangs forever (the kernel's flock has no deadlock detection), so it is never run
 * natively. The correct twin is flock_ordered. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static char path_a[] = "/tmp/chess-trace-flock-a-XXXXXX";
static char path_b[] = "/tmp/chess-trace-flock-b-XXXXXX";

/* Tells the other process we hold our first lock, and waits until it holds its own. */
static int handshake(int tell, int hear) {
  char byte = 'x';
  return write(tell, &byte, 1) == 1 && read(hear, &byte, 1) == 1 ? 0 : -1;
}

__attribute__((noinline)) static int child_takes_b_then_a(int tell, int hear) {
  const int a = open(path_a, O_RDWR | O_CLOEXEC), b = open(path_b, O_RDWR | O_CLOEXEC);
  if (a < 0 || b < 0 || flock(b, LOCK_EX) != 0 || handshake(tell, hear) != 0) return 1;
  return flock(a, LOCK_EX) == 0 ? 0 : 1;
}

__attribute__((noinline)) static int parent_takes_a_then_b(int tell, int hear) {
  const int a = open(path_a, O_RDWR | O_CLOEXEC), b = open(path_b, O_RDWR | O_CLOEXEC);
  if (a < 0 || b < 0 || flock(a, LOCK_EX) != 0 || handshake(tell, hear) != 0) return 1;
  /* Both processes have their descriptions now: the names can go, so a killed run leaves none. */
  unlink(path_a);
  unlink(path_b);
  return flock(b, LOCK_EX) == 0 ? 0 : 1;
}

int main(void) {
  const int fa = mkstemp(path_a), fb = mkstemp(path_b);
  if (fa < 0 || fb < 0) return 2;
  close(fa);
  close(fb);
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(to_child[1]);
    close(to_parent[0]);
    _exit(child_takes_b_then_a(to_parent[1], to_child[0]));
  }
  close(to_child[0]);
  close(to_parent[1]);
  const int result = parent_takes_a_then_b(to_child[1], to_parent[0]);
  int status;
  waitpid(child, &status, 0);
  printf("not reached: parent %d, child exited %d\n", result, WEXITSTATUS(status));
  return result;
}
