// Two processes open the two ends of a FIFO: each open blocks until the other end is opened,
// in both orders (the reader first, then the writer first), and the message gets through. An
// open that sleeps in the kernel must still be asleep there when its partner comes.
// faithful-hold: the program then opens a FIFO no one will ever open the other end of.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pause_briefly(void) {
  const struct timespec brief = {0, 50 * 1000 * 1000};
  nanosleep(&brief, NULL);
}

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s: %s\n", what, strerror(errno));
    exit(1);
  }
}

// `reader_first`: the writer waits a moment before its open, so the reader's open sleeps
// first; otherwise the reader waits.
static void round_trip(const char* path, int reader_first) {
  check(mkfifo(path, 0600) == 0, "mkfifo");
  pid_t child = fork();
  check(child >= 0, "fork");
  if (child == 0) {
    if (reader_first) pause_briefly();
    int fd = open(path, O_WRONLY);
    check(fd >= 0, "open for writing");
    check(write(fd, "hello", 5) == 5, "write");
    close(fd);
    _exit(7);
  }
  if (!reader_first) pause_briefly();
  int fd = openat(AT_FDCWD, path, O_RDONLY);
  check(fd >= 0, "open for reading");
  char got[16] = {0};
  ssize_t n = read(fd, got, sizeof got - 1);
  close(fd);
  int status = 0;
  check(waitpid(child, &status, 0) == child, "waitpid");
  printf("%s first: read %zd bytes \"%s\", writer exited %d\n", reader_first ? "reader" : "writer", n, got,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  unlink(path);
}

int main(int argc, char** argv) {
  char dir[] = "/tmp/faithful-fifo-XXXXXX";
  check(mkdtemp(dir) != NULL, "mkdtemp");
  char path[64];
  snprintf(path, sizeof path, "%s/fifo", dir);
  round_trip(path, 1);
  round_trip(path, 0);
  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    check(mkfifo(path, 0600) == 0, "mkfifo");
    printf("holding\n");
    fflush(stdout);
    open(path, O_RDONLY);  // no writer ever comes
  }
  rmdir(dir);
  return 0;
}
