/* A program whose output depends on something chess-trace does not control, for
 * `run --check-determinism`, chosen by its argument:
 *   proc  reads /proc/self/stat and prints its process start time (clock ticks since boot);
 *   raw   makes a raw fstat syscall on a new pipe and prints the pipe's inode number, which the
 *         kernel numbers afresh for every pipe;
 *   rdrand prints a number from the CPU's random number generator (rdrand: no syscall, and
 *         nothing here can make it fault);
 *   none  prints what it computed from virtual time and seeded randomness only (its correct
 *         twin: every run must be the same).
 * Each run of the first two prints a different number, so runs differ in a write. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int proc_start_time(void) {
  char text[1024];
  const int fd = open("/proc/self/stat", O_RDONLY);
  if (fd < 0) return 2;
  const ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n <= 0) return 2;
  text[n] = '\0';
  /* Field 22, counted after the command name in parentheses (which may hold spaces). */
  const char* field = strrchr(text, ')');
  for (int i = 2; field != NULL && i < 22; ++i) field = strchr(field + 1, ' ');
  if (field == NULL) return 2;
  printf("started %llu ticks after boot\n", strtoull(field + 1, NULL, 10));
  return 0;
}

static int pipe_inode(void) {
  int ends[2];
  if (pipe(ends) != 0) return 2;
  struct stat st;
  if (syscall(SYS_fstat, ends[0], &st) != 0) return 2;
  printf("pipe inode %llu\n", (unsigned long long)st.st_ino);
  return 0;
}

__attribute__((target("rdrnd"))) static int hardware_random(void) {
  unsigned int value = 0;
  if (!__builtin_ia32_rdrand32_step(&value)) return 2;
  printf("rdrand %u\n", value);
  return 0;
}

static int controlled(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned char bytes[8];
  if (getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) return 2;
  printf("time %lld.%09ld, random %02x%02x%02x%02x, pid %d\n", (long long)now.tv_sec, now.tv_nsec, bytes[0], bytes[1],
         bytes[2], bytes[3], (int)getpid());
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "none";
  if (strcmp(mode, "proc") == 0) return proc_start_time();
  if (strcmp(mode, "raw") == 0) return pipe_inode();
  if (strcmp(mode, "rdrand") == 0) return hardware_random();
  return controlled();
}
