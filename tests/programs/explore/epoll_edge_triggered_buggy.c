/* An epoll event loop serving two client processes. Each client writes its one-byte request into a
 * shared request pipe and waits for the answer on a pipe of its own; the server watches the
 * request pipe with EPOLLET (edge-triggered) and answers every request it reads.
 *
 * Bug: the loop reads one request per event. Edge-triggered epoll reports data that arrived since
 * the last epoll_wait once, however many writes brought it: when both clients write before the
 * server looks, it wakes once, answers one client and waits for an edge that never comes. The
 * other client waits for its answer, the server in epoll_wait for a request only the clients
 * could write: a deadlock between processes. The natural schedule has the server answer the first
 * client before the second runs; the bug needs the second client to run first when the first
 * blocks — a free choice, no preemption.
 *
 * Fixed twin: epoll_edge_triggered_fixed.c drains the pipe (non-blocking reads until EAGAIN) on
 * every event, as edge-triggered epoll requires. */
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

/* Reads the requests of one event: one, the bug. Answers each; returns how many it answered. */
static int serve_event(int requests, const int* answers) {
  char id = 0;
  if (read(requests, &id, 1) != 1) return 0;
  const int client = id - 'a';
  if (client < 0 || client >= kClients || write(answers[client], &id, 1) != 1) return 0;
  return 1;
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
