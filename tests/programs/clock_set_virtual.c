// Setting the clock under chess-trace's virtual time: clock_settime, settimeofday, adjtimex and
// clock_adjtime with ADJ_SETOFFSET move the program's CLOCK_REALTIME (and a child's, which
// shares it), never its monotonic clock, and never the host's. Without CAP_SYS_TIME (which
// settimeofday(NULL, NULL) tells: it checks and changes nothing) each is refused with EPERM, as
// the kernel would, and the clock stays; `unprivileged` as its argument says it must be so.
//
// It runs only under `chess-trace run --epoch 1000000000`: it first checks that the realtime
// clock reads that epoch through clock_gettime and through adjtimex (which only a chess-trace
// that keeps the clock-setting calls for itself answers from its virtual clock), and refuses
// otherwise — natively, as root, or under a chess-trace that lets these calls through, it would
// set the machine's clock.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EPOCH 1000000000L

static long realtime_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (long)now.tv_sec;
}

static long monotonic_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)now.tv_sec;
}

// The clock reads `expected` (within a second), through clock_gettime, gettimeofday, time and
// adjtimex alike.
static void expect_realtime(const char* after, long expected) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct timex tx = {0};
  const int state = adjtimex(&tx);
  const long reads[] = {realtime_seconds(), (long)tv.tv_sec, (long)time(NULL), (long)tx.time.tv_sec};
  for (size_t i = 0; i < sizeof reads / sizeof reads[0]; ++i) {
    if (state < 0 || labs(reads[i] - expected) > 1) {
      printf("after %s: read %zu says %ld, expected %ld\n", after, i, reads[i], expected);
      exit(1);
    }
  }
  printf("after %s: realtime %ld\n", after, expected);
}

static void expect_result(const char* call, int rc, int expected_errno) {
  const int got = rc == -1 ? errno : 0;
  if (got != expected_errno) {
    printf("%s: %s, expected %s\n", call, strerror(got), strerror(expected_errno));
    exit(1);
  }
}

int main(int argc, char** argv) {
  const int unprivileged = syscall(SYS_settimeofday, NULL, NULL) != 0;
  if (argc > 1 && strcmp(argv[1], "unprivileged") == 0 && !unprivileged) {
    printf("settimeofday(NULL, NULL) succeeded: the program has CAP_SYS_TIME\n");
    return 1;
  }
  printf("%s\n", unprivileged ? "without CAP_SYS_TIME" : "with CAP_SYS_TIME");
  const long start = realtime_seconds();
  struct timex state_read = {0};
  const int read_state = adjtimex(&state_read);
  if (start < EPOCH || start > EPOCH + 100 || read_state < 0 || labs((long)state_read.time.tv_sec - start) > 1) {
    printf("the realtime clock reads %ld (adjtimex: %ld), not chess-trace's --epoch %ld: refusing to set it\n",
           start, (long)state_read.time.tv_sec, EPOCH);
    return 2;
  }
  const long monotonic = monotonic_seconds();
  const int refused = unprivileged ? EPERM : 0;

  struct timespec ts = {1500000000, 0};
  expect_result("clock_settime", clock_settime(CLOCK_REALTIME, &ts), refused);
  expect_realtime("clock_settime", unprivileged ? EPOCH : 1500000000);

  struct timeval tv = {1600000000, 500000};
  expect_result("settimeofday", settimeofday(&tv, NULL), refused);
  expect_realtime("settimeofday", unprivileged ? EPOCH : 1600000000);

  struct timex forward = {.modes = ADJ_SETOFFSET, .time = {.tv_sec = 100, .tv_usec = 0}};
  const int state = adjtimex(&forward);
  expect_result("adjtimex(ADJ_SETOFFSET)", state < 0 ? -1 : 0, refused);
  expect_realtime("adjtimex(ADJ_SETOFFSET +100 s)", unprivileged ? EPOCH : 1600000100);

  struct timex back = {.modes = ADJ_SETOFFSET | ADJ_NANO, .time = {.tv_sec = -51, .tv_usec = 500000000}};
  expect_result("clock_adjtime(ADJ_SETOFFSET)", clock_adjtime(CLOCK_REALTIME, &back) < 0 ? -1 : 0, refused);
  expect_realtime("clock_adjtime(ADJ_SETOFFSET -50.5 s)", unprivileged ? EPOCH : 1600000050);

  // Before the monotonic clock: the kernel keeps realtime after boot.
  struct timespec too_early = {1, 0};
  expect_result("clock_settime(before boot)", clock_settime(CLOCK_REALTIME, &too_early),
                unprivileged ? EPERM : EINVAL);

  if (labs(monotonic_seconds() - monotonic) > 1) {
    printf("the monotonic clock moved from %ld to %ld\n", monotonic, monotonic_seconds());
    return 1;
  }
  printf("monotonic clock unchanged\n");

  const pid_t child = fork();
  if (child == 0) {
    expect_realtime("fork (in the child)", unprivileged ? EPOCH : 1600000050);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  printf("ok\n");
  return 0;
}
