// A thread polls a signalfd that watches SIGUSR1 while another thread makes the same descriptor
// watch SIGUSR2 instead (signalfd on an existing descriptor) and then sends the process SIGUSR2,
// blocked everywhere. The kernel's poll looks at the signalfd's mask as it is now: the poll
// returns at once, with its timeout not used up (the ppoll system call writes back what is
// left), and the read gives SIGUSR2. Whoever follows the poller must read the mask when it
// looks, not remember the one the poll began with: then the poll would end only at its timeout.
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fd;

static void* changer(void* unused) {
  (void)unused;
  // Under chess-trace's virtual time this sleep ends only once the poller waits; natively the
  // order does not matter.
  const struct timespec pause = {0, 10000000};
  nanosleep(&pause, NULL);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  if (signalfd(fd, &usr2, 0) != fd) return "signalfd on the existing descriptor failed";
  if (kill(getpid(), SIGUSR2) != 0) return "kill failed";
  return NULL;
}

int main(void) {
  sigset_t both, usr1;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  sigprocmask(SIG_BLOCK, &both, NULL);  // in every thread: only the signalfd takes them
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  fd = signalfd(-1, &usr1, SFD_CLOEXEC);
  if (fd < 0) return 2;
  pthread_t thread;
  pthread_create(&thread, NULL, changer, NULL);
  struct pollfd polled = {fd, POLLIN, 0};
  struct timespec timeout = {10, 0};
  // The system call itself: the C library's ppoll hides the time left from its caller.
  const int ready = (int)syscall(SYS_ppoll, &polled, 1, &timeout, NULL, sizeof(sigset_t));
  printf("ppoll: %d descriptor(s) ready, readable: %s, its timeout used up: %s\n", ready,
         (polled.revents & POLLIN) ? "yes" : "no", timeout.tv_sec == 0 && timeout.tv_nsec == 0 ? "yes" : "no");
  void* failed = NULL;
  pthread_join(thread, &failed);
  if (failed != NULL) printf("changer: %s\n", (const char*)failed);
  struct signalfd_siginfo info;
  if (ready == 1 && read(fd, &info, sizeof info) == sizeof info) printf("read: %s\n", sigabbrev_np((int)info.ssi_signo));
  return 0;
}
