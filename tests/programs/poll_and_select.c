/* poll(), ppoll(), select() and pselect() waiting on pipes: each call waits (no timeout) for two
 * pipes, one written by a thread and one by a child process, each writer pausing 2 ms first so
 * the wait really blocks; then every call once with a timeout that expires on a pipe nobody
 * writes (it must return 0) and once with a zero timeout (0 on the empty pipe, 1 on a pipe with
 * data). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kPoll, kPpoll, kSelect, kPselect, kCalls };
static const char* const kNames[kCalls] = {"poll", "ppoll", "select", "pselect"};

static void pause_briefly(void) {
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);
}

static void* thread_writer(void* arg) {
  const int fd = *(const int*)arg;
  pause_briefly();
  const char message[] = "from the thread";
  if (write(fd, message, sizeof(message) - 1) != (ssize_t)sizeof(message) - 1) return (void*)1;
  close(fd);
  return NULL;
}

/* One wait of the given kind for readability of fds[0..1] (a negative fd is skipped);
 * timeout_ms < 0: no timeout. Returns the call's result and sets readable[]. */
static int wait_readable(int kind, const int fds[2], int timeout_ms, int readable[2]) {
  readable[0] = readable[1] = 0;
  struct timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000L};
  sigset_t mask;
  sigemptyset(&mask);
  int rc;
  if (kind == kPoll || kind == kPpoll) {
    struct pollfd pfds[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
    do {
      rc = kind == kPoll ? poll(pfds, 2, timeout_ms) : ppoll(pfds, 2, timeout_ms < 0 ? NULL : &ts, &mask);
    } while (rc < 0 && errno == EINTR);
    for (int i = 0; i < 2; ++i) readable[i] = fds[i] >= 0 && (pfds[i].revents & (POLLIN | POLLHUP)) != 0;
  } else {
    fd_set set;
    int highest = -1;
    do {
      FD_ZERO(&set);
      for (int i = 0; i < 2; ++i) {
        if (fds[i] < 0) continue;
        FD_SET(fds[i], &set);
        if (fds[i] > highest) highest = fds[i];
      }
      rc = kind == kSelect ? select(highest + 1, &set, NULL, NULL, timeout_ms < 0 ? NULL : &tv)
                           : pselect(highest + 1, &set, NULL, NULL, timeout_ms < 0 ? NULL : &ts, &mask);
    } while (rc < 0 && errno == EINTR);
    for (int i = 0; i < 2; ++i) readable[i] = fds[i] >= 0 && rc > 0 && FD_ISSET(fds[i], &set);
  }
  return rc;
}

/* Waits with `kind` until both writers are done; returns 0 when both messages arrived whole. */
static int wait_for_thread_and_child(int kind) {
  int from_thread[2], from_child[2];
  if (pipe(from_thread) != 0 || pipe(from_child) != 0) return 1;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(from_thread[0]);
    close(from_thread[1]);
    close(from_child[0]);
    pause_briefly();
    const char message[] = "from the child";
    _exit(write(from_child[1], message, sizeof(message) - 1) == (ssize_t)sizeof(message) - 1 ? 0 : 1);
  }
  close(from_child[1]);
  pthread_t thread;
  if (pthread_create(&thread, NULL, thread_writer, &from_thread[1]) != 0) return 1;

  int fds[2] = {from_thread[0], from_child[0]};
  char received[2][32] = {{0}};
  size_t lengths[2] = {0, 0};
  int errors = 0;
  while (fds[0] >= 0 || fds[1] >= 0) {
    int readable[2];
    const int rc = wait_readable(kind, fds, -1, readable);
    if (rc <= 0) return 1; /* no timeout: it can only return when something is ready */
    for (int i = 0; i < 2; ++i) {
      if (!readable[i]) continue;
      const ssize_t n = read(fds[i], received[i] + lengths[i], sizeof(received[i]) - 1 - lengths[i]);
      if (n < 0) ++errors;
      if (n <= 0) {
        close(fds[i]);
        fds[i] = -1;
      } else {
        lengths[i] += (size_t)n;
      }
    }
  }
  void* thread_result;
  pthread_join(thread, &thread_result);
  int status;
  if (waitpid(child, &status, 0) != child) return 1;
  printf("%s: read '%s' and '%s' until EOF\n", kNames[kind], received[0], received[1]);
  return errors == 0 && thread_result == NULL && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                 strcmp(received[0], "from the thread") == 0 && strcmp(received[1], "from the child") == 0
             ? 0
             : 1;
}

/* The timeouts: 20 ms on a pipe nobody writes (expires: 0), zero on it (0), zero on a pipe with
 * data (1, readable). */
static int timeouts(int kind, int empty, int full) {
  int readable[2];
  const int empty_fds[2] = {empty, -1}, full_fds[2] = {full, -1};
  const int expired = wait_readable(kind, empty_fds, 20, readable);
  const int zero_empty = wait_readable(kind, empty_fds, 0, readable);
  const int zero_full = wait_readable(kind, full_fds, 0, readable);
  printf("%s: 20 ms timeout on an empty pipe returned %d; zero timeout: %d on the empty pipe, %d on one with data%s\n",
         kNames[kind], expired, zero_empty, zero_full, readable[0] ? " (readable)" : "");
  return expired == 0 && zero_empty == 0 && zero_full == 1 && readable[0] ? 0 : 1;
}

int main(void) {
  int failures = 0;
  for (int kind = 0; kind < kCalls; ++kind) failures += wait_for_thread_and_child(kind);
  int empty[2], full[2];
  if (pipe(empty) != 0 || pipe(full) != 0 || write(full[1], "x", 1) != 1) return 2;
  for (int kind = 0; kind < kCalls; ++kind) failures += timeouts(kind, empty[0], full[0]);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
