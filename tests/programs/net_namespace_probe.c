/* Talks to itself over TCP on 127.0.0.1 at the fixed port argv[1]: binds a listener, connects to
 * it, sends a byte and reads it back. Then prints the network interfaces it can see, sorted by
 * name, each with whether it is up:
 *
 *   listening on 127.0.0.1:PORT
 *   echoed 1 byte
 *   interface lo up
 *
 * Under `--isolate net` that is loopback alone, and up, whatever holds PORT on the machine.
 * Exits 0 when all of it worked, 1 with a message on stderr otherwise. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_INTERFACES 64

struct interface {
  char name[IF_NAMESIZE + 1];
  int up;
};

static int fail(const char* what) {
  fprintf(stderr, "net_namespace_probe: %s: %s\n", what, strerror(errno));
  return 1;
}

static int by_name(const void* a, const void* b) {
  return strcmp(((const struct interface*)a)->name, ((const struct interface*)b)->name);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: net_namespace_probe PORT\n");
    return 2;
  }
  char* end = NULL;
  const long port = strtol(argv[1], &end, 10);
  if (*argv[1] == '\0' || *end != '\0' || port <= 0 || port > 65535) {
    fprintf(stderr, "net_namespace_probe: not a port: %s\n", argv[1]);
    return 2;
  }

  struct sockaddr_in address;
  memset(&address, 0, sizeof(address));
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return fail("socket");
  if (bind(listener, (struct sockaddr*)&address, sizeof(address)) != 0) return fail("bind 127.0.0.1");
  if (listen(listener, 1) != 0) return fail("listen");
  printf("listening on 127.0.0.1:%ld\n", port);

  const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (client < 0) return fail("socket");
  if (connect(client, (struct sockaddr*)&address, sizeof(address)) != 0) return fail("connect 127.0.0.1");
  const int server = accept(listener, NULL, NULL);
  if (server < 0) return fail("accept");

  const char sent = 'x';
  char received = 0;
  if (write(client, &sent, 1) != 1) return fail("send");
  if (read(server, &received, 1) != 1) return fail("receive");
  if (received != sent) {
    fprintf(stderr, "net_namespace_probe: sent '%c', received '%c'\n", sent, received);
    return 1;
  }
  printf("echoed 1 byte\n");
  /* The client closes first and the server only once it has read the end: the TIME_WAIT that
   * follows is the client's, on its ephemeral port, and PORT is free again at once. */
  close(client);
  if (read(server, &received, 1) != 0) return fail("read the end of the connection");
  close(server);
  close(listener);

  struct ifaddrs* all = NULL;
  if (getifaddrs(&all) != 0) return fail("getifaddrs");
  struct interface seen[MAX_INTERFACES];
  size_t count = 0;
  for (const struct ifaddrs* entry = all; entry != NULL; entry = entry->ifa_next) {
    size_t i = 0;
    while (i < count && strcmp(seen[i].name, entry->ifa_name) != 0) ++i;
    if (i < count) continue;  /* one entry per address family: the interface is already listed */
    if (count == MAX_INTERFACES) break;
    snprintf(seen[count].name, sizeof(seen[count].name), "%s", entry->ifa_name);
    seen[count].up = (entry->ifa_flags & IFF_UP) != 0;
    ++count;
  }
  freeifaddrs(all);
  qsort(seen, count, sizeof(seen[0]), by_name);
  for (size_t i = 0; i < count; ++i) printf("interface %s %s\n", seen[i].name, seen[i].up ? "up" : "down");
  return 0;
}
