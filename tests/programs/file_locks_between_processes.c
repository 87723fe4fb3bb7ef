/* Four forked processes each add 1 to a counter kept in a shared file, 200 times, under a
 * blocking file lock, in three rounds: flock(LOCK_EX) on a descriptor each process opened itself
 * (a flock belongs to the open file description), fcntl(F_SETLKW) process locks, and
 * fcntl(F_OFD_SETLKW) locks on per-process descriptions. The increment is a read-modify-write
 * with a sched_yield in the middle, so a lock that did not exclude would lose updates. Each
 * round prints the final counter, which is 800 under every schedule. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kProcesses = 4, kIncrements = 200 };
enum Kind { kFlock, kProcessLock, kOpenFileDescriptionLock };
static const char* const kKindNames[] = {"flock(LOCK_EX)", "fcntl(F_SETLKW)", "fcntl(F_OFD_SETLKW)"};

static char path[] = "/tmp/chess-trace-file-locks-XXXXXX";

static int lock(int fd, enum Kind kind, short type) {
  if (kind == kFlock) return flock(fd, type == F_WRLCK ? LOCK_EX : LOCK_UN);
  struct flock range = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0, .l_pid = 0};
  return fcntl(fd, kind == kProcessLock ? F_SETLKW : F_OFD_SETLKW, &range);
}

static int read_counter(int fd, long* value) {
  char text[32] = {0};
  const ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return -1;
  *value = strtol(text, NULL, 10);
  return 0;
}

static int write_counter(int fd, long value) {
  char text[32];
  const int length = snprintf(text, sizeof(text), "%020ld\n", value);
  return pwrite(fd, text, (size_t)length, 0) == length ? 0 : -1;
}

/* One process's share of a round: its own open file description, kIncrements locked updates. */
static int incrementer(enum Kind kind) {
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return 10;
  for (int i = 0; i < kIncrements; ++i) {
    if (lock(fd, kind, F_WRLCK) != 0) return 11;
    long value;
    if (read_counter(fd, &value) != 0) return 12;
    sched_yield(); /* invite another process into the critical section, if the lock let it */
    if (write_counter(fd, value + 1) != 0) return 13;
    if (lock(fd, kind, F_UNLCK) != 0) return 14;
  }
  close(fd);
  return 0;
}

static int round_of(enum Kind kind) {
  const int fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC);
  if (fd < 0 || write_counter(fd, 0) != 0) return -1;
  fflush(stdout);
  pid_t children[kProcesses];
  for (int p = 0; p < kProcesses; ++p) {
    children[p] = fork();
    if (children[p] < 0) return -1;
    if (children[p] == 0) _exit(incrementer(kind));
  }
  int failed_children = 0;
  for (int p = 0; p < kProcesses; ++p) {
    int status;
    if (waitpid(children[p], &status, 0) != children[p]) return -1;
    failed_children += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  long value = -1;
  if (read_counter(fd, &value) != 0) value = -1;
  close(fd);
  printf("%-20s counter %ld (expected %d), %d processes failed\n", kKindNames[kind], value,
         kProcesses * kIncrements, failed_children);
  return value == kProcesses * kIncrements && failed_children == 0 ? 0 : -1;
}

int main(void) {
  const int fd = mkstemp(path);
  if (fd < 0) return 2;
  close(fd);
  int failures = 0;
  for (enum Kind kind = kFlock; kind <= kOpenFileDescriptionLock; ++kind) failures += round_of(kind) != 0;
  unlink(path);
  return failures == 0 ? 0 : 1;
}
