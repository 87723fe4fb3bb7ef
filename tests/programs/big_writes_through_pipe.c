/* Single writes far larger than a pipe or socket holds: a writer process makes one write() of
 * 1 MiB and one writev() of five iovecs (299,537 bytes) into a pipe, then one send() of 512 KiB
 * on a socket pair, while the parent reads both in pieces of 1000 bytes. Each call must return
 * its full size (the writer blocks until the reader has made room, again and again); the reader
 * prints byte counts and FNV-1a checksums, which it checks against the data it expects. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kBigWrite = 1 << 20, kSend = 512 << 10, kPiece = 1000 };
static const size_t kIovecSizes[] = {100000, 1, 65536, 70000, 64000};
enum { kIovecs = sizeof(kIovecSizes) / sizeof(kIovecSizes[0]) };

/* Byte `i` of stream `seed`: every stream is distinct and no byte pattern repeats soon. */
static unsigned char stream_byte(uint32_t seed, size_t i) {
  uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;
  x ^= x >> 15;
  return (unsigned char)(x * 2246822519u >> 24);
}

static uint32_t fnv1a(uint32_t hash, const unsigned char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  return hash;
}

static unsigned char* make_stream(uint32_t seed, size_t size) {
  unsigned char* data = malloc(size);
  if (data != NULL)
    for (size_t i = 0; i < size; ++i) data[i] = stream_byte(seed, i);
  return data;
}

/* Exit status: 0 when every call returned its whole size; 10+k when call k fell short. */
static int writer(int pipe_out, int socket_out) {
  unsigned char* big = make_stream(1, kBigWrite);
  size_t iovec_total = 0;
  for (int i = 0; i < kIovecs; ++i) iovec_total += kIovecSizes[i];
  unsigned char* scattered = make_stream(2, iovec_total);
  unsigned char* sent = make_stream(3, kSend);
  if (big == NULL || scattered == NULL || sent == NULL) return 2;
  if (write(pipe_out, big, kBigWrite) != kBigWrite) return 10;
  struct iovec iov[kIovecs];
  size_t offset = 0;
  for (int i = 0; i < kIovecs; ++i) {
    iov[i] = (struct iovec){.iov_base = scattered + offset, .iov_len = kIovecSizes[i]};
    offset += kIovecSizes[i];
  }
  if (writev(pipe_out, iov, kIovecs) != (ssize_t)iovec_total) return 11;
  close(pipe_out);
  if (send(socket_out, sent, kSend, 0) != kSend) return 12;
  close(socket_out);
  return 0;
}

/* Reads `fd` to EOF in pieces of kPiece bytes; returns the byte count and the checksum. */
static size_t read_all(int fd, uint32_t* checksum) {
  unsigned char piece[kPiece];
  size_t total = 0;
  *checksum = 2166136261u;
  ssize_t n;
  while ((n = read(fd, piece, sizeof(piece))) > 0) {
    *checksum = fnv1a(*checksum, piece, (size_t)n);
    total += (size_t)n;
  }
  return n == 0 ? total : 0;
}

int main(void) {
  int through_pipe[2], through_socket[2];
  if (pipe(through_pipe) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, through_socket) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(through_pipe[0]);
    close(through_socket[0]);
    _exit(writer(through_pipe[1], through_socket[1]));
  }
  close(through_pipe[1]);
  close(through_socket[1]);

  uint32_t pipe_sum, socket_sum;
  const size_t pipe_bytes = read_all(through_pipe[0], &pipe_sum);
  const size_t socket_bytes = read_all(through_socket[0], &socket_sum);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;

  /* What the reader should have seen: the 1 MiB stream, then the writev's, on the pipe. */
  size_t iovec_total = 0;
  for (int i = 0; i < kIovecs; ++i) iovec_total += kIovecSizes[i];
  unsigned char* big = make_stream(1, kBigWrite);
  unsigned char* scattered = make_stream(2, iovec_total);
  unsigned char* sent = make_stream(3, kSend);
  if (big == NULL || scattered == NULL || sent == NULL) return 2;
  const uint32_t expected_pipe = fnv1a(fnv1a(2166136261u, big, kBigWrite), scattered, iovec_total);
  const uint32_t expected_socket = fnv1a(2166136261u, sent, kSend);

  printf("pipe: %zu bytes (write %d + writev %zu), checksum %08x, %s\n", pipe_bytes, kBigWrite, iovec_total,
         pipe_sum, pipe_sum == expected_pipe ? "as written" : "DIFFERENT from what was written");
  printf("socket: %zu bytes (send %d), checksum %08x, %s\n", socket_bytes, kSend, socket_sum,
         socket_sum == expected_socket ? "as written" : "DIFFERENT from what was written");
  printf("writer exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return pipe_bytes == kBigWrite + iovec_total && socket_bytes == kSend && pipe_sum == expected_pipe &&
                 socket_sum == expected_socket && WIFEXITED(status) && WEXITSTATUS(status) == 0
             ? 0
             : 1;
}
