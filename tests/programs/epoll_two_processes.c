/* An epoll event loop serving two other processes: a producer child writes 2000 numbers into a
 * pipe (registered edge-triggered, drained until EAGAIN); the loop forwards every number over a
 * socket pair (level-triggered, EPOLLOUT only while output is pending) to a squaring child and
 * sums the squares it sends back. The loop ends on the pipe's EOF/EPOLLHUP and the socket's EOF
 * after a shutdown(SHUT_WR). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kNumbers = 2000, kNumberLength = 8, kSquareLength = 16 };

static int producer(int out) {
  char line[kNumberLength + 1];
  for (int i = 1; i <= kNumbers; ++i) {
    snprintf(line, sizeof(line), "%07d\n", i);
    if (write(out, line, kNumberLength) != kNumberLength) return 1;
  }
  return 0;
}

/* Reads numbers until EOF, answers each with its square. */
static int squarer(int fd) {
  char line[kNumberLength + 1] = {0};
  for (;;) {
    size_t got = 0;
    while (got < kNumberLength) {
      const ssize_t n = read(fd, line + got, kNumberLength - got);
      if (n < 0) return 1;
      if (n == 0) return got == 0 ? 0 : 2;
      got += (size_t)n;
    }
    const long value = strtol(line, NULL, 10);
    char reply[32]; /* room for any long; the values here take 15 digits */
    snprintf(reply, sizeof(reply), "%015ld\n", value * value);
    if (write(fd, reply, kSquareLength) != kSquareLength) return 3;
  }
}

static int set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* Output waiting for the socket, and partial records read from each descriptor. */
static char pending[kNumbers * kNumberLength];
static size_t pending_start, pending_end;
static char pipe_partial[kNumberLength], socket_partial[kSquareLength];
static size_t pipe_partial_length, socket_partial_length;

int main(void) {
  int numbers[2], squares[2];
  if (pipe(numbers) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, squares) != 0) return 2;
  fflush(stdout);
  const pid_t producer_pid = fork();
  if (producer_pid < 0) return 2;
  if (producer_pid == 0) {
    close(numbers[0]);
    close(squares[0]);
    close(squares[1]);
    _exit(producer(numbers[1]));
  }
  close(numbers[1]);
  const pid_t squarer_pid = fork();
  if (squarer_pid < 0) return 2;
  if (squarer_pid == 0) {
    close(numbers[0]);
    close(squares[0]);
    _exit(squarer(squares[1]));
  }
  close(squares[1]);

  const int pipe_fd = numbers[0], socket_fd = squares[0];
  if (set_nonblocking(pipe_fd) != 0 || set_nonblocking(socket_fd) != 0) return 2;
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return 2;
  struct epoll_event event = {.events = EPOLLIN | EPOLLET, .data.fd = pipe_fd};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, pipe_fd, &event) != 0) return 2;
  event = (struct epoll_event){.events = EPOLLIN, .data.fd = socket_fd};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, socket_fd, &event) != 0) return 2;

  int numbers_read = 0, squares_read = 0, errors = 0;
  long sum_of_numbers = 0, sum_of_squares = 0;
  int pipe_open = 1, socket_open = 1, writing = 0, shut_down = 0;
  while (pipe_open || socket_open) {
    struct epoll_event events[4];
    const int ready = epoll_wait(epoll_fd, events, 4, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return 3;
    }
    for (int e = 0; e < ready; ++e) {
      const int fd = events[e].data.fd;
      if (fd == pipe_fd && (events[e].events & (EPOLLIN | EPOLLHUP))) {
        /* Edge-triggered: drain until EAGAIN, or this edge is lost. */
        for (;;) {
          const ssize_t n = read(pipe_fd, pipe_partial + pipe_partial_length,
                                 sizeof(pipe_partial) - pipe_partial_length);
          if (n < 0) {
            if (errno != EAGAIN) ++errors;
            break;
          }
          if (n == 0) {
            if (pipe_partial_length != 0) ++errors;
            if (epoll_ctl(epoll_fd, EPOLL_CTL_DEL, pipe_fd, NULL) != 0) ++errors;
            close(pipe_fd);
            pipe_open = 0;
            break;
          }
          pipe_partial_length += (size_t)n;
          if (pipe_partial_length == kNumberLength) {
            sum_of_numbers += strtol(pipe_partial, NULL, 10);
            ++numbers_read;
            memcpy(pending + pending_end, pipe_partial, kNumberLength);
            pending_end += kNumberLength;
            pipe_partial_length = 0;
          }
        }
      }
      if (fd == socket_fd && (events[e].events & EPOLLOUT)) {
        const ssize_t n = write(socket_fd, pending + pending_start, pending_end - pending_start);
        if (n > 0) pending_start += (size_t)n;
        else if (n < 0 && errno != EAGAIN) ++errors;
      }
      if (fd == socket_fd && (events[e].events & (EPOLLIN | EPOLLHUP))) {
        /* Level-triggered: one read per event is enough; epoll reports the rest again. */
        const ssize_t n = read(socket_fd, socket_partial + socket_partial_length,
                               sizeof(socket_partial) - socket_partial_length);
        if (n < 0 && errno != EAGAIN) ++errors;
        if (n == 0) {
          if (socket_partial_length != 0) ++errors;
          if (epoll_ctl(epoll_fd, EPOLL_CTL_DEL, socket_fd, NULL) != 0) ++errors;
          socket_open = 0;
        }
        if (n > 0) {
          socket_partial_length += (size_t)n;
          if (socket_partial_length == kSquareLength) {
            sum_of_squares += strtol(socket_partial, NULL, 10);
            ++squares_read;
            socket_partial_length = 0;
          }
        }
      }
    }
    if (!socket_open) continue;
    /* EPOLLOUT only while something waits to be sent: a writable socket would wake the loop
     * forever (level-triggered). */
    const int want_write = pending_start < pending_end;
    if (want_write != writing) {
      event = (struct epoll_event){.events = EPOLLIN | (want_write ? EPOLLOUT : 0), .data.fd = socket_fd};
      if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, socket_fd, &event) != 0) return 4;
      writing = want_write;
    }
    if (!pipe_open && !want_write && !shut_down) {
      if (shutdown(socket_fd, SHUT_WR) != 0) return 4;
      shut_down = 1;
    }
  }
  close(socket_fd);
  close(epoll_fd);

  int producer_status, squarer_status;
  if (waitpid(producer_pid, &producer_status, 0) != producer_pid) return 5;
  if (waitpid(squarer_pid, &squarer_status, 0) != squarer_pid) return 5;
  printf("pipe (edge-triggered): %d numbers, sum %ld, EOF seen\n", numbers_read, sum_of_numbers);
  printf("socket (level-triggered, EPOLLOUT while pending): %d squares, sum %ld, EOF seen\n", squares_read,
         sum_of_squares);
  printf("producer exited %d, squarer exited %d, %d errors\n", WEXITSTATUS(producer_status),
         WEXITSTATUS(squarer_status), errors);
  const long n = kNumbers;
  return numbers_read == kNumbers && squares_read == kNumbers && sum_of_numbers == n * (n + 1) / 2 &&
                 sum_of_squares == n * (n + 1) * (2 * n + 1) / 6 && errors == 0 &&
                 WIFEXITED(producer_status) && WEXITSTATUS(producer_status) == 0 &&
                 WIFEXITED(squarer_status) && WEXITSTATUS(squarer_status) == 0
             ? 0
             : 1;
}
