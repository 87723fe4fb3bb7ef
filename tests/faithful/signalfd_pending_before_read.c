// A read of a signalfd returns a signal that is already pending, sent to the process or to
// the thread, at once; a read (and a poll) with nothing pending waits until another process
// sends one. The signals are blocked, as signalfd wants them.
// faithful-hold: the program then reads a signalfd for a signal no one sends.
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void read_one(int fd, const char* what) {
  struct signalfd_siginfo info;
  ssize_t n = read(fd, &info, sizeof info);
  printf("%s: read %zd bytes, signal %s, sent by %s\n", what, n, n > 0 ? sigabbrev_np((int)info.ssi_signo) : "-",
         n > 0 && (pid_t)info.ssi_pid == getpid() ? "this process" : "another process");
  fflush(stdout);
}

int main(int argc, char** argv) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGURG);
  sigaddset(&signals, SIGUSR1);
  sigaddset(&signals, SIGUSR2);
  sigprocmask(SIG_BLOCK, &signals, NULL);
  int fd = signalfd(-1, &signals, 0);

  kill(getpid(), SIGURG);  // to the process; ignored by default, but blocked it stays pending
  read_one(fd, "process-directed, pending before the read");
  pthread_kill(pthread_self(), SIGUSR1);
  read_one(fd, "thread-directed, pending before the read");

  pid_t child = fork();
  if (child == 0) {
    const struct timespec brief = {0, 50 * 1000 * 1000};
    nanosleep(&brief, NULL);
    kill(getppid(), SIGUSR2);
    nanosleep(&brief, NULL);
    kill(getppid(), SIGUSR1);
    _exit(0);
  }
  read_one(fd, "sent by a child while the read waits");
  struct pollfd ready = {fd, POLLIN, 0};
  int polled = poll(&ready, 1, -1);
  printf("poll returned %d, revents %s\n", polled, ready.revents & POLLIN ? "POLLIN" : "none");
  read_one(fd, "after the poll");
  waitpid(child, NULL, 0);

  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    printf("holding\n");
    fflush(stdout);
    read_one(fd, "never");
  }
  return 0;
}
