/* EINTR against SA_RESTART: a child blocks (read() on an empty pipe, sem_wait() on a semaphore
 * at 0, a 5 s nanosleep()) and the parent sends it SIGUSR1. Without SA_RESTART each call fails
 * with EINTR (nanosleep with more than 4 s left); with SA_RESTART the read and the sem_wait go on
 * and return what the parent provides after the signal.
 *
 * Deterministic whenever the signal lands: the child says "about to block" on a pipe and the
 * parent waits 10 ms before signalling. Without SA_RESTART the parent repeats the signal every
 * 20 ms until the child reports, so a signal that came just before the call (its handler runs,
 * then the call blocks) is followed by one that interrupts it; how often the handler ran is not
 * printed there. With SA_RESTART the signal is sent once, before the data: the handler runs
 * exactly once before the call returns, inside the call or just before it. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kRead, kSemWait, kNanosleep };
static const char* const kCallNames[] = {"read", "sem_wait", "nanosleep 5 s"};

static volatile sig_atomic_t handled;
static void on_signal(int signo) {
  (void)signo;
  ++handled;
}

static void pause_ms(long ms) {
  struct timespec pause = {0, ms * 1000000L};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

/* The child: blocks in `call` and writes one line saying how the call ended; exit 0 when that is
 * what the flags predict. */
static int child_blocks(int call, int restart, int data, sem_t* semaphore, int report) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = on_signal;
  action.sa_flags = restart ? SA_RESTART : 0;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGUSR1, &action, NULL) != 0) return 2;
  char line[160];
  int expected;
  if (write(report, "r", 1) != 1) return 2; /* about to block */
  if (call == kRead) {
    char buffer[16] = {0};
    const ssize_t n = read(data, buffer, sizeof(buffer) - 1);
    const int error = errno;
    if (restart) {
      snprintf(line, sizeof(line), "returned %zd bytes '%s', handler ran %d time(s)", n, n > 0 ? buffer : "",
               (int)handled);
      expected = n == 4 && strcmp(buffer, "data") == 0 && handled == 1;
    } else {
      snprintf(line, sizeof(line), "returned %zd, %s, handler ran: %s", n, n < 0 ? strerror(error) : "no error",
               handled > 0 ? "yes" : "no");
      expected = n == -1 && error == EINTR && handled > 0;
    }
  } else if (call == kSemWait) {
    const int rc = sem_wait(semaphore);
    const int error = errno;
    if (restart) {
      snprintf(line, sizeof(line), "returned %d after the post, handler ran %d time(s)", rc, (int)handled);
      expected = rc == 0 && handled == 1;
    } else {
      snprintf(line, sizeof(line), "returned %d, %s, handler ran: %s", rc, rc < 0 ? strerror(error) : "no error",
               handled > 0 ? "yes" : "no");
      expected = rc == -1 && error == EINTR && handled > 0;
    }
  } else {
    struct timespec sleep_for = {5, 0}, remaining = {0, 0};
    const int rc = nanosleep(&sleep_for, &remaining);
    const int error = errno;
    snprintf(line, sizeof(line), "returned %d, %s, more than 4 s remaining: %s, handler ran: %s", rc,
             rc < 0 ? strerror(error) : "no error", remaining.tv_sec >= 4 ? "yes" : "no", handled > 0 ? "yes" : "no");
    expected = rc == -1 && error == EINTR && remaining.tv_sec >= 4 && handled > 0;
  }
  const size_t length = strlen(line);
  if (write(report, line, length) != (ssize_t)length) return 2;
  return expected ? 0 : 1;
}

static int one_case(int call, int restart, sem_t* semaphore) {
  int data[2], report[2];
  if (pipe(data) != 0 || pipe(report) != 0) return 1;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(data[1]);
    close(report[0]);
    _exit(child_blocks(call, restart, data[0], semaphore, report[1]));
  }
  close(data[0]);
  close(report[1]);
  char ready;
  if (read(report[0], &ready, 1) != 1 || ready != 'r') return 1;
  pause_ms(10);
  int errors = 0;
  if (restart) {
    if (kill(child, SIGUSR1) != 0) ++errors;
    pause_ms(10);
    if (call == kRead && write(data[1], "data", 4) != 4) ++errors;
    if (call == kSemWait && sem_post(semaphore) != 0) ++errors;
  } else {
    int reported = 0;
    for (int attempt = 0; attempt < 250 && !reported; ++attempt) {
      if (kill(child, SIGUSR1) != 0) ++errors;
      struct pollfd pfd = {.fd = report[0], .events = POLLIN};
      reported = poll(&pfd, 1, 20) == 1;
    }
    if (!reported && kill(child, SIGKILL) == 0) ++errors; /* never interrupted: do not wait forever */
  }
  char line[160] = {0};
  size_t length = 0;
  ssize_t n;
  while ((n = read(report[0], line + length, sizeof(line) - 1 - length)) > 0) length += (size_t)n;
  close(report[0]);
  close(data[1]);
  int status;
  if (waitpid(child, &status, 0) != child) return 1;
  printf("%s, handler %s SA_RESTART: %s; child exited %d\n", kCallNames[call], restart ? "with" : "without", line,
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return errors == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(void) {
  alarm(30); /* a safety net only: everything here ends within a second */
  sem_t* semaphore = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (semaphore == MAP_FAILED || sem_init(semaphore, 1, 0) != 0) return 2;
  int failures = 0;
  failures += one_case(kRead, 0, semaphore);
  failures += one_case(kRead, 1, semaphore);
  failures += one_case(kSemWait, 0, semaphore);
  failures += one_case(kSemWait, 1, semaphore);
  failures += one_case(kNanosleep, 0, semaphore);
  int value = -1;
  sem_getvalue(semaphore, &value);
  printf("%d failures; the semaphore ends at %d\n", failures, value);
  return failures == 0 && value == 0 ? 0 : 1;
}
