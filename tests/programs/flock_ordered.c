/* The correct twin of deadlock_flock_abba: a parent and its forked child both take
 * flock(LOCK_EX) on file A, then on file B (one global order, so no deadlock), each on
 * descriptions it opened itself, after the same pipe handshake, 100 rounds; inside both locks
 * each adds 1 to a counter kept in file B with a read-modify-write. The final counter is 200. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kRounds = 100 };

static char path_a[] = "/tmp/chess-trace-flock-a-XXXXXX";
static char path_b[] = "/tmp/chess-trace-flock-b-XXXXXX";

/* Tells the other process we are ready, and waits until it is. */
static int handshake(int tell, int hear) {
  char byte = 'x';
  return write(tell, &byte, 1) == 1 && read(hear, &byte, 1) == 1 ? 0 : -1;
}

static int add_one(int fd) {
  char text[32] = {0};
  if (pread(fd, text, sizeof(text) - 1, 0) < 0) return -1;
  const long value = strtol(text, NULL, 10);
  sched_yield(); /* the other process would get in here if the locks did not exclude */
  const int length = snprintf(text, sizeof(text), "%020ld\n", value + 1);
  return pwrite(fd, text, (size_t)length, 0) == length ? 0 : -1;
}

static int takes_a_then_b(int tell, int hear) {
  const int a = open(path_a, O_RDWR | O_CLOEXEC), b = open(path_b, O_RDWR | O_CLOEXEC);
  if (a < 0 || b < 0) return 1;
  for (int round = 0; round < kRounds; ++round) {
    if (handshake(tell, hear) != 0) return 2;
    if (flock(a, LOCK_EX) != 0 || flock(b, LOCK_EX) != 0) return 3;
    if (add_one(b) != 0) return 4;
    if (flock(b, LOCK_UN) != 0 || flock(a, LOCK_UN) != 0) return 5;
  }
  close(a);
  close(b);
  return 0;
}

int main(void) {
  const int fa = mkstemp(path_a), fb = mkstemp(path_b);
  if (fa < 0 || fb < 0) return 2;
  close(fa);
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(to_child[1]);
    close(to_parent[0]);
    _exit(takes_a_then_b(to_parent[1], to_child[0]));
  }
  close(to_child[0]);
  close(to_parent[1]);
  const int parent_result = takes_a_then_b(to_child[1], to_parent[0]);
  close(to_child[1]); /* if we gave up early, the child's handshake sees EOF instead of waiting */
  close(to_parent[0]);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  char text[32] = {0};
  const long counter = pread(fb, text, sizeof(text) - 1, 0) > 0 ? strtol(text, NULL, 10) : -1;
  close(fb);
  unlink(path_a);
  unlink(path_b);
  const int child_result = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  printf("A then B in both processes, %d rounds each: counter %ld (expected %d); parent %d, child %d\n", kRounds,
         counter, 2 * kRounds, parent_result, child_result);
  return counter == 2 * kRounds && parent_result == 0 && child_result == 0 ? 0 : 1;
}
