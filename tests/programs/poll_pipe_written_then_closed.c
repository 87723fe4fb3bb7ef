/* The correct twin of deadlock_poll_on_own_pipe: a thread polls (no timeout) the read end of a
 * pipe and reads what is ready until poll reports POLLHUP and read returns 0; the main thread
 * writes 100 lines into the pipe, closes the write end, and only then joins the thread. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { kLines = 100 };

static int pipe_ends[2];
static long bytes_read, newlines, polls_with_hangup;

static void* poller_reads_until_hangup(void* unused) {
  (void)unused;
  char buffer[256];
  for (;;) {
    struct pollfd input = {.fd = pipe_ends[0], .events = POLLIN};
    if (poll(&input, 1, -1) != 1) return (void*)1;
    if (input.revents & POLLHUP) ++polls_with_hangup;
    const ssize_t n = read(pipe_ends[0], buffer, sizeof(buffer));
    if (n < 0) return (void*)1;
    if (n == 0) return (input.revents & POLLHUP) ? NULL : (void*)1;
    bytes_read += n;
    for (ssize_t i = 0; i < n; ++i) newlines += buffer[i] == '\n';
  }
}

int main(void) {
  if (pipe(pipe_ends) != 0) return 2;
  pthread_t poller;
  if (pthread_create(&poller, NULL, poller_reads_until_hangup, NULL) != 0) return 2;
  long written = 0;
  for (int i = 0; i < kLines; ++i) {
    char line[32];
    const int length = snprintf(line, sizeof(line), "line %d of the input\n", i);
    if (write(pipe_ends[1], line, (size_t)length) != length) return 3;
    written += length;
  }
  close(pipe_ends[1]);
  void* result = (void*)1;
  if (pthread_join(poller, &result) != 0) return 4;
  close(pipe_ends[0]);
  printf("wrote %ld bytes, read %ld bytes in %ld lines, EOF after POLLHUP: %s\n", written, bytes_read, newlines,
         result == NULL && polls_with_hangup > 0 ? "yes" : "no");
  return result == NULL && bytes_read == written && newlines == kLines ? 0 : 1;
}
