/* harness_peer: the server and the client of the sleep_before_client_*.sh harnesses, over a
 * Unix socket.
 *   harness_peer server SOCKET [READY]  binds SOCKET, listens, creates the file READY (if given)
 *                                       to say so, answers one client, exits 0
 *   harness_peer client SOCKET          connects, sends "ping", prints the answer; exits 1 when
 *                                       it cannot connect (no server yet) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int Address(const char* path, struct sockaddr_un* address) {
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof address->sun_path) return -1;
  strcpy(address->sun_path, path);
  return 0;
}

static int Server(const char* path, const char* ready) {
  struct sockaddr_un address;
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || Address(path, &address) != 0) return 2;
  unlink(path);
  if (bind(fd, (struct sockaddr*)&address, sizeof address) != 0 || listen(fd, 1) != 0) {
    fprintf(stderr, "server: %s: %s\n", path, strerror(errno));
    return 2;
  }
  if (ready != NULL) close(open(ready, O_CREAT | O_WRONLY, 0644));
  const int client = accept(fd, NULL, NULL);
  if (client < 0) return 2;
  char request[16] = {0};
  if (read(client, request, sizeof request - 1) <= 0) return 2;
  const char* answer = strcmp(request, "ping") == 0 ? "pong" : "what?";
  if (write(client, answer, strlen(answer)) < 0) return 2;
  close(client);
  close(fd);
  unlink(path);
  return 0;
}

static int Client(const char* path) {
  struct sockaddr_un address;
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || Address(path, &address) != 0) return 2;
  if (connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
    fprintf(stderr, "client: cannot connect to %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (write(fd, "ping", 4) != 4) return 2;
  char answer[16] = {0};
  if (read(fd, answer, sizeof answer - 1) <= 0) return 2;
  printf("client: %s\n", answer);
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "server") == 0) return Server(argv[2], argc >= 4 ? argv[3] : NULL);
  if (argc == 3 && strcmp(argv[1], "client") == 0) return Client(argv[2]);
  fprintf(stderr, "usage: harness_peer server SOCKET [READY] | client SOCKET\n");
  return 2;
}
