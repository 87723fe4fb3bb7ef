/* Signals between two processes. Round 1: parent and child ping-pong SIGUSR1/SIGUSR2 200 times,
 * each side blocked outside sigsuspend(), handlers count. Round 2: the child takes 100
 * sigqueue()d SIGUSR1 with sigwaitinfo(), the parent the answers with sigtimedwait(); values
 * and senders are checked. Round 3: the child waits in pause() (the parent repeats the signal
 * until the child acknowledges on a pipe, so an early signal cannot lose the wake-up). Last,
 * the child exits and the parent's SIGCHLD handler runs exactly once. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kPingPongs = 200, kQueued = 100 };

static volatile sig_atomic_t usr1_handled, usr2_handled, chld_handled;

static void on_usr1(int signo) {
  (void)signo;
  ++usr1_handled;
}
static void on_usr2(int signo) {
  (void)signo;
  ++usr2_handled;
}
static void on_chld(int signo) {
  (void)signo;
  ++chld_handled;
}

static int install(int signo, void (*handler)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  return sigaction(signo, &action, NULL);
}

/* The child's side; its exit status is the number of things that went wrong. */
static int child_side(pid_t parent, const sigset_t* unblocked, int ack) {
  int errors = 0;
  /* Round 1: wait for each ping, answer with a pong. */
  for (int i = 1; i <= kPingPongs; ++i) {
    while (usr1_handled < i) sigsuspend(unblocked);
    if (kill(parent, SIGUSR2) != 0) ++errors;
  }
  /* Round 2: synchronous waits, no handler runs. */
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  for (int i = 1; i <= kQueued; ++i) {
    siginfo_t info;
    int signo;
    /* Every handled signal is blocked here, so no handler can interrupt the wait: an EINTR
     * would be spurious. It is counted as an error, and the wait retried. */
    while ((signo = sigwaitinfo(&usr1, &info)) < 0 && errno == EINTR) ++errors;
    if (signo != SIGUSR1) {
      ++errors;
      continue;
    }
    if (info.si_pid != parent || info.si_code != SI_QUEUE || info.si_value.sival_int != i) ++errors;
    if (sigqueue(parent, SIGUSR2, (union sigval){.sival_int = i * i}) != 0) ++errors;
  }
  /* Round 3: pause() with SIGUSR1 unblocked; the handler ends it. */
  const int before = usr1_handled;
  sigprocmask(SIG_SETMASK, unblocked, NULL);
  while (usr1_handled == before) pause();
  if (write(ack, "k", 1) != 1) ++errors;
  return errors;
}

int main(void) {
  alarm(30); /* a safety net only: everything here ends within a second */
  if (install(SIGUSR1, on_usr1) != 0 || install(SIGUSR2, on_usr2) != 0 || install(SIGCHLD, on_chld) != 0) return 2;
  sigset_t blocked, unblocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigaddset(&blocked, SIGUSR2);
  sigaddset(&blocked, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &blocked, &unblocked) != 0) return 2;
  sigdelset(&unblocked, SIGUSR1);
  sigdelset(&unblocked, SIGUSR2);
  sigdelset(&unblocked, SIGCHLD);
  int ack[2];
  if (pipe(ack) != 0) return 2;

  const pid_t parent = getpid();
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    alarm(30); /* a safety net only, like the parent's: a lost signal must not hang the test */
    close(ack[0]);
    _exit(child_side(parent, &unblocked, ack[1]));
  }
  close(ack[1]);

  int errors = 0;
  for (int i = 1; i <= kPingPongs; ++i) {
    if (kill(child, SIGUSR1) != 0) ++errors;
    while (usr2_handled < i) sigsuspend(&unblocked);
  }
  printf("round 1 (sigsuspend): parent handled %d SIGUSR2\n", (int)usr2_handled);

  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  long sum_of_values = 0;
  int answers = 0, spurious = 0; /* SIGUSR2 is blocked and no handler can run: EINTR is spurious */
  for (int i = 1; i <= kQueued; ++i) {
    if (sigqueue(child, SIGUSR1, (union sigval){.sival_int = i}) != 0) ++errors;
    const struct timespec patience = {10, 0};
    siginfo_t info;
    int signo;
    while ((signo = sigtimedwait(&usr2, &info, &patience)) < 0 && errno == EINTR) ++spurious;
    if (signo != SIGUSR2 || info.si_pid != child || info.si_code != SI_QUEUE) {
      ++errors;
      continue;
    }
    ++answers;
    sum_of_values += info.si_value.sival_int;
  }
  printf("round 2 (sigwaitinfo/sigtimedwait): %d answers, sum of values %ld, handlers still at %d, "
         "%d spurious EINTR\n", answers, sum_of_values, (int)usr2_handled, spurious);

  /* Round 3: the child may not be in pause() yet when a signal comes, so repeat it until the
   * acknowledgement arrives; only the acknowledgement is printed, not the number of signals. */
  char acknowledgement = 0;
  for (int attempt = 0; attempt < 500 && acknowledgement == 0; ++attempt) {
    if (kill(child, SIGUSR1) != 0) ++errors;
    struct pollfd pfd = {.fd = ack[0], .events = POLLIN};
    if (poll(&pfd, 1, 10) == 1 && read(ack[0], &acknowledgement, 1) != 1) ++errors;
  }
  printf("round 3 (pause): child acknowledged '%c'\n", acknowledgement);

  while (chld_handled == 0) sigsuspend(&unblocked);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  printf("SIGCHLD handled %d time(s); child exited %d\n", (int)chld_handled,
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  printf("%d errors in the parent\n", errors);
  return errors == 0 && spurious == 0 && usr2_handled == kPingPongs && answers == kQueued &&
                 acknowledgement == 'k' && chld_handled == 1 && WIFEXITED(status) && WEXITSTATUS(status) == 0
             ? 0
             : 1;
}
