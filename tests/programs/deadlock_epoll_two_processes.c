/* An epoll deadlock between two processes: a parent and its forked child each run an event loop
 * (epoll_wait, no timeout) on a pipe that only the other process writes, and each waits for the
 * other to speak first. Both closed the ends they do not use, so each pipe's write end is held
 * only by a process that is itself waiting: nobody can ever write. Never run natively: it
 * hangs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

/* Waits (epoll_wait, no timeout) for input on `in`, then answers on `out`. */
static int wait_then_answer(int in, int out) {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return 1;
  struct epoll_event event = {.events = EPOLLIN, .data.fd = in};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, in, &event) != 0) return 1;
  struct epoll_event ready;
  if (epoll_wait(epoll_fd, &ready, 1, -1) != 1) return 1;
  char buffer[16];
  if (read(in, buffer, sizeof(buffer)) <= 0) return 1;
  return write(out, "answer", 6) == 6 ? 0 : 1;
}

__attribute__((noinline)) static int child_waits_for_the_parent_to_speak(int in, int out) {
  return wait_then_answer(in, out);
}

__attribute__((noinline)) static int parent_waits_for_the_child_to_speak(int in, int out) {
  return wait_then_answer(in, out);
}

int main(void) {
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(to_child[1]);
    close(to_parent[0]);
    _exit(child_waits_for_the_parent_to_speak(to_child[0], to_parent[1]));
  }
  close(to_child[0]);
  close(to_parent[1]);
  const int result = parent_waits_for_the_child_to_speak(to_parent[0], to_child[1]);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  printf("not reached: parent %d, child exited %d\n", result, WEXITSTATUS(status));
  return result;
}
