/* A Unix-domain stream server: the parent binds a socket in a mkdtemp() directory, listens,
 * forks 3 clients that connect and send 100 requests each, and accepts and serves the
 * connections one at a time (each request is answered with its number doubled); every client
 * checks its replies, and the server reaps the clients in fork order. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kClients = 3, kRequests = 100, kMessage = 16 };

/* Reads exactly `size` bytes; returns 0 on EOF before the first byte, -1 on error or a short
 * message, 1 when the message is complete. */
static int read_message(int fd, char* buffer, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = read(fd, buffer + got, size - got);
    if (n < 0) return -1;
    if (n == 0) return got == 0 ? 0 : -1;
    got += (size_t)n;
  }
  return 1;
}

static int write_message(int fd, const char* buffer, size_t size) {
  return write(fd, buffer, size) == (ssize_t)size ? 1 : -1;
}

/* A client: connects, sends its requests, checks every reply; exits with 0 when all were right. */
static int client(int id, const struct sockaddr_un* address) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return 2;
  if (connect(fd, (const struct sockaddr*)address, sizeof(*address)) != 0) return 3;
  int right = 0;
  for (int i = 0; i < kRequests; ++i) {
    char request[kMessage + 1], reply[kMessage + 1] = {0};
    const long value = id * 1000L + i;
    snprintf(request, sizeof(request), "%015ld\n", value);
    if (write_message(fd, request, kMessage) != 1) return 4;
    if (read_message(fd, reply, kMessage) != 1) return 5;
    right += strtol(reply, NULL, 10) == 2 * value;
  }
  close(fd);
  return right == kRequests ? 0 : 6;
}

int main(void) {
  char directory[] = "/tmp/chess-trace-unix-server-XXXXXX";
  if (mkdtemp(directory) == NULL) return 2;
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  snprintf(address.sun_path, sizeof(address.sun_path), "%s/socket", directory);

  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (listener < 0) return 2;
  if (bind(listener, (struct sockaddr*)&address, sizeof(address)) != 0) return 2;
  if (listen(listener, kClients) != 0) return 2;

  pid_t clients[kClients];
  for (int i = 0; i < kClients; ++i) {
    fflush(stdout);
    clients[i] = fork();
    if (clients[i] < 0) return 2;
    if (clients[i] == 0) {
      close(listener);
      _exit(client(i, &address));
    }
  }

  int connections = 0, requests = 0, failures = 0;
  long checksum = 0;
  for (int c = 0; c < kClients; ++c) {
    const int fd = accept(listener, NULL, NULL);
    if (fd < 0) {
      ++failures;
      continue;
    }
    ++connections;
    char message[kMessage + 1] = {0};
    int status;
    while ((status = read_message(fd, message, kMessage)) == 1) {
      const long value = strtol(message, NULL, 10);
      checksum += value;
      ++requests;
      char reply[kMessage + 1];
      snprintf(reply, sizeof(reply), "%015ld\n", 2 * value);
      if (write_message(fd, reply, kMessage) != 1) {
        ++failures;
        break;
      }
    }
    if (status < 0) ++failures;
    close(fd);
  }
  close(listener);

  int clients_ok = 0;
  for (int i = 0; i < kClients; ++i) {
    int status;
    if (waitpid(clients[i], &status, 0) != clients[i]) return 7;
    printf("client %d exited %d\n", i, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    clients_ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (unlink(address.sun_path) != 0 || rmdir(directory) != 0) ++failures;
  printf("server: %d connections, %d requests, checksum %ld, %d failures\n", connections, requests, checksum,
         failures);
  return connections == kClients && requests == kClients * kRequests && clients_ok == kClients && failures == 0
             ? 0
             : 1;
}
