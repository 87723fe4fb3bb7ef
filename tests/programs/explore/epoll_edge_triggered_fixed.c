/* The twin of epoll_edge_triggered_buggy.c: every event drains the request pipe — non-blocking
 * reads until EAGAIN — as edge-triggered epoll requires, so requests that arrived together are
 * all answered. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kClients = 2 };

static int client(int requests, int answers, char id) {
  if (write(requests, &id, 1) != 1) return 2;
  char answer = 0;
  if (read(answers, &answer, 1) != 1 || answer != id) return 1;
  return 0;
}

/* Reads every request the event brought, until the pipe is empty. Answers each; returns how many
 * it answered. */
static int serve_event(int requests, const int* answers) {
  int answered = 0;
  char id = 0;
  while (read(requests, &id, 1) == 1) {
    const int client = id - 'a';
    if (client < 0 || client >= kClients || write(answers[client], &id, 1) != 1) return answered;
    ++answered;
  }
  return answered;
}

int main(void) {
  int requests[2];
  if (pipe2(requests, O_NONBLOCK) != 0) return 2;
  int answers[kClients][2];
  pid_t clients[kClients];
  for (int i = 0; i < kClients; ++i) {
    if (pipe(answers[i]) != 0) return 2;
    clients[i] = fork();
    if (clients[i] < 0) return 2;
    if (clients[i] == 0) {
      close(requests[0]);
      close(answers[i][1]);
      _exit(client(requests[1], answers[i][0], (char)('a' + i)));
    }
    close(answers[i][0]);
  }
  close(requests[1]);
  const int poller = epoll_create1(0);
  struct epoll_event interest = {.events = EPOLLIN | EPOLLET};
  if (poller < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, requests[0], &interest) != 0) return 2;
  const int write_ends[kClients] = {answers[0][1], answers[1][1]};
  for (int answered = 0; answered < kClients;) {
    struct epoll_event event;
    if (epoll_wait(poller, &event, 1, -1) != 1) return 2;
    answered += serve_event(requests[0], write_ends);
  }
  int failed = 0;
  for (int i = 0; i < kClients; ++i) {
    int status = 0;
    if (waitpid(clients[i], &status, 0) != clients[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  puts(failed ? "a client failed" : "every client answered");
  return failed;
}
