/* The correct twin of deadlock_socketpair_both_read: over a Unix stream socket pair the parent
 * speaks first — 300 requests, each answered by the forked child with its checksum — and only
 * then waits to read; the child waits for a request (recv) and replies (send) until EOF. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kRequests = 300, kRequest = 24, kReply = 12 };

static int read_exactly(int fd, char* buffer, size_t length) {
  size_t got = 0;
  while (got < length) {
    const ssize_t n = read(fd, buffer + got, length - got);
    if (n <= 0) return n == 0 && got == 0 ? 0 : -1;
    got += (size_t)n;
  }
  return 1;
}

static long checksum(const char* text, size_t length) {
  long sum = 0;
  for (size_t i = 0; i < length; ++i) sum = sum * 31 % 1000000007 + (unsigned char)text[i];
  return sum % 1000000007;
}

/* The child: waits for a request (recv, a whole record), then answers it. */
__attribute__((noinline)) static int child_waits_for_a_request(int fd) {
  char request[kRequest], reply[kReply + 1];
  for (;;) {
    size_t got = 0;
    while (got < kRequest) {
      const ssize_t n = recv(fd, request + got, kRequest - got, 0);
      if (n == 0 && got == 0) return 0; /* the parent is done */
      if (n <= 0) return 1;
      got += (size_t)n;
    }
    snprintf(reply, sizeof(reply), "%011ld\n", checksum(request, kRequest));
    if (send(fd, reply, kReply, 0) != kReply) return 2;
  }
}

/* The parent speaks first: sends a request, then waits for its reply. */
__attribute__((noinline)) static int parent_sends_then_reads(int fd, long* total) {
  char request[kRequest + 1], reply[kReply + 1] = {0};
  int correct = 0;
  for (int i = 0; i < kRequests; ++i) {
    snprintf(request, sizeof(request), "request number %07d\n", i);
    if (write(fd, request, kRequest) != kRequest) return -1;
    if (read_exactly(fd, reply, kReply) != 1) return -1;
    const long value = strtol(reply, NULL, 10);
    correct += value == checksum(request, kRequest);
    *total = (*total + value) % 1000000007;
  }
  return correct;
}

int main(void) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(ends[0]);
    _exit(child_waits_for_a_request(ends[1]));
  }
  close(ends[1]);
  long total = 0;
  const int correct = parent_sends_then_reads(ends[0], &total);
  close(ends[0]);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  printf("%d of %d requests answered correctly, checksum of replies %ld; child exited %d\n", correct, kRequests,
         total, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return correct == kRequests && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
