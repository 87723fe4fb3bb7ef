/* A parent and a forked child talk over a Unix socket pair: 200 requests, each answered with
 * the reversed text. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    close(ends[0]);
    char message[16];
    ssize_t n;
    while ((n = read(ends[1], message, sizeof(message))) > 0) {
      for (ssize_t i = 0; i < n / 2; ++i) {
        char c = message[i];
        message[i] = message[n - 1 - i];
        message[n - 1 - i] = c;
      }
      if (write(ends[1], message, n) != n) _exit(3);
    }
    _exit(0);
  }
  close(ends[1]);
  int answered = 0;
  for (int i = 0; i < 200; ++i) {
    char request[16], reply[16] = {0};
    const int length = snprintf(request, sizeof(request), "req-%04d", i);
    if (write(ends[0], request, length) != length) return 4;
    ssize_t got = 0;
    while (got < length) {
      ssize_t n = read(ends[0], reply + got, length - got);
      if (n <= 0) return 5;
      got += n;
    }
    char expected[16];
    for (int j = 0; j < length; ++j) expected[j] = request[length - 1 - j];
    answered += memcmp(reply, expected, length) == 0;
  }
  close(ends[0]);
  int status;
  waitpid(child, &status, 0);
  printf("%d of 200 requests answered correctly; child exited %d\n", answered, WEXITSTATUS(status));
  return answered == 200 ? 0 : 1;
}
