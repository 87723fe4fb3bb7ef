/* pingpong: a tiny server and client over a Unix socket, for the example harnesses.
 *
 *   pingpong server SOCKET   listens on SOCKET, answers one client ("ping" -> "pong"), exits 0
 *   pingpong client SOCKET   connects, sends "ping", prints the answer, exits 0;
 *                            exits 1 when it cannot connect (no server listening yet)
 *
 * The server binds and listens on SOCKET.tmp and only then renames it to SOCKET, so the socket
 * file appears once a client can connect: harness_fixed.sh waits for it with `[ -S SOCKET ]`.
 * (Binding SOCKET directly makes it appear between bind() and listen(), a window in which a
 * client is refused; chess-trace explore finds that one too.)
 *
 * Build: cc -O2 -Wall -o pingpong pingpong.c */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int Address(const char* path, struct sockaddr_un* address) {
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof address->sun_path) {
    fprintf(stderr, "pingpong: socket path too long: %s\n", path);
    return -1;
  }
  strcpy(address->sun_path, path);
  return 0;
}

static int Server(const char* path) {
  char staging[sizeof ((struct sockaddr_un*)0)->sun_path];
  struct sockaddr_un address;
  if (snprintf(staging, sizeof staging, "%s.tmp", path) >= (int)sizeof staging) return 2;
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || Address(staging, &address) != 0) return 2;
  unlink(staging);
  if (bind(fd, (struct sockaddr*)&address, sizeof address) != 0 || listen(fd, 1) != 0 ||
      rename(staging, path) != 0) {
    fprintf(stderr, "server: %s: %s\n", path, strerror(errno));
    return 2;
  }
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
  if (argc == 3 && strcmp(argv[1], "server") == 0) return Server(argv[2]);
  if (argc == 3 && strcmp(argv[1], "client") == 0) return Client(argv[2]);
  fprintf(stderr, "usage: pingpong server SOCKET | pingpong client SOCKET\n");
  return 2;
}
