/* Job control between processes: a forked child writes 20000 numbered 8-byte records into a
 * pipe, more than the pipe holds. After the first record arrives the parent stops the child
 * with SIGSTOP and sees it stopped with waitpid(WUNTRACED) (WIFSTOPPED, WSTOPSIG == SIGSTOP);
 * it drains the pipe, waits 200 ms and checks that nothing more arrived while the child was
 * stopped; then SIGCONT, and waitpid(WCONTINUED) sees WIFCONTINUED; then it reads the rest until
 * EOF. Every record must arrive once and in order. The output holds only what must hold under
 * every schedule (how much was in the pipe at the stop varies, so it is not printed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kRecords = 20000, kRecord = 8 };

static int writer(int out) {
  char record[kRecord + 1];
  for (int i = 0; i < kRecords; ++i) {
    snprintf(record, sizeof(record), "%07d\n", i);
    if (write(out, record, kRecord) != kRecord) return 1;
  }
  return 0;
}

/* What the parent has read: whole records checked against the sequence, and a partial one. */
static char partial[kRecord];
static size_t partial_length;
static int records, out_of_order;

static void take(const char* data, size_t length) {
  for (size_t i = 0; i < length; ++i) {
    partial[partial_length++] = data[i];
    if (partial_length == kRecord) {
      char expected[kRecord + 1];
      snprintf(expected, sizeof(expected), "%07d\n", records);
      out_of_order += memcmp(partial, expected, kRecord) != 0;
      ++records;
      partial_length = 0;
    }
  }
}

/* Reads until EAGAIN (non-blocking), EOF or error; returns the bytes read, or -1. */
static long drain(int fd, int* eof) {
  char buffer[4096];
  long total = 0;
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      take(buffer, (size_t)n);
      total += n;
      continue;
    }
    if (n == 0) {
      *eof = 1;
      return total;
    }
    if (errno == EINTR) continue;
    return errno == EAGAIN ? total : -1;
  }
}

static int waitpid_retrying(pid_t pid, int* status, int options) {
  pid_t result;
  while ((result = waitpid(pid, status, options)) < 0 && errno == EINTR) {
  }
  return result == pid ? 0 : -1;
}

int main(void) {
  int ends[2];
  if (pipe(ends) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(ends[0]);
    _exit(writer(ends[1]));
  }
  close(ends[1]);

  /* The first record: the child runs. */
  char first[kRecord];
  size_t got = 0;
  while (got < kRecord) {
    const ssize_t n = read(ends[0], first + got, kRecord - got);
    if (n <= 0) return 3;
    got += (size_t)n;
  }
  take(first, kRecord);

  int status = 0;
  if (kill(child, SIGSTOP) != 0 || waitpid_retrying(child, &status, WUNTRACED) != 0) return 4;
  const int stopped = WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP;
  printf("after SIGSTOP: waitpid(WUNTRACED) reports %s\n",
         stopped ? "stopped by SIGSTOP" : WIFEXITED(status) ? "an exit" : "something else");

  /* Empty the pipe; nothing more may come while the child is stopped. */
  if (fcntl(ends[0], F_SETFL, O_NONBLOCK) != 0) return 5;
  int eof = 0;
  if (drain(ends[0], &eof) < 0) return 5;
  const struct timespec pause = {.tv_sec = 0, .tv_nsec = 200 * 1000 * 1000};
  while (nanosleep(&pause, NULL) != 0 && errno == EINTR) {
  }
  const long while_stopped = drain(ends[0], &eof);
  printf("while stopped: %s\n", while_stopped == 0 && !eof ? "no data arrived" : "data arrived or EOF");

  if (kill(child, SIGCONT) != 0 || waitpid_retrying(child, &status, WCONTINUED) != 0) return 6;
  const int continued = WIFCONTINUED(status);
  printf("after SIGCONT: waitpid(WCONTINUED) reports %s\n", continued ? "continued" : "something else");

  /* The rest, blocking, until EOF. */
  if (fcntl(ends[0], F_SETFL, 0) != 0) return 7;
  if (!eof && drain(ends[0], &eof) < 0) return 7;
  if (waitpid_retrying(child, &status, 0) != 0) return 8;
  const int exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  printf("received %d of %d records, %d out of order, %zu stray bytes; child %s\n", records, kRecords,
         out_of_order, partial_length, exited ? "exited 0" : "failed");
  return stopped && while_stopped == 0 && continued && eof && records == kRecords && out_of_order == 0 &&
                 partial_length == 0 && exited
             ? 0
             : 1;
}
