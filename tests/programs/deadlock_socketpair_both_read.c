/* A socket-pair deadlock: a parent and its forked child share a Unix stream socket pair, and
 * each waits to read first — the child for a request, the parent for a greeting that the
 * protocol says the child sends, but the child was written to expect the parent to speak first.
 * Each side holds the only other end of the other's socket, so nobody can ever write. Never run
 * natively: it hangs. The correct twin is socketpair_request_reply. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child: waits for a request (recv), then would answer it. */
__attribute__((noinline)) static int child_waits_for_a_request(int fd) {
  char request[32];
  const ssize_t n = recv(fd, request, sizeof(request), 0);
  if (n <= 0) return 1;
  return send(fd, request, (size_t)n, 0) == n ? 0 : 1;
}

/* The parent: the bug, it waits for a greeting (read) before sending its first request. */
__attribute__((noinline)) static int parent_waits_for_a_greeting(int fd) {
  char greeting[32];
  const ssize_t n = read(fd, greeting, sizeof(greeting));
  if (n <= 0) return 1;
  return write(fd, "request", 7) == 7 ? 0 : 1;
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
  const int result = parent_waits_for_a_greeting(ends[0]);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  printf("not reached: parent %d, child exited %d\n", result, WEXITSTATUS(status));
  return result;
}
