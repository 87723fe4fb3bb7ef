// adjtimex and clock_adjtime read the clock that clock_gettime reads (under chess-trace: the
// virtual one), and a request to set or adjust a clock that the kernel refuses is refused with
// the kernel's error, whoever runs it: EINVAL or EFAULT for bad arguments, EPERM before the
// later checks without CAP_SYS_TIME. Every request here is one the kernel rejects, so that the
// native run, even as root, never sets the machine's clock.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

static const char* error_name(int rc) {
  if (rc >= 0) return "ok";
  switch (errno) {
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EFAULT: return "EFAULT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    default: return "another error";
  }
}

static long realtime_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (long)now.tv_sec;
}

// A read of the clock state: whether it succeeds, and whether its time agrees with
// clock_gettime(CLOCK_REALTIME) within a second.
static void show_read(const char* what, int rc, const struct timex* tx) {
  const long now = realtime_seconds();
  printf("%s: %s, %s clock_gettime\n", what, rc < 0 ? error_name(rc) : "read",
         labs((long)tx->time.tv_sec - now) <= 1 ? "agrees with" : "DISAGREES with");
}

int main(void) {
  struct timex tx = {0};
  show_read("adjtimex(0)", adjtimex(&tx), &tx);
  struct timex tx_clock = {0};
  show_read("clock_adjtime(CLOCK_REALTIME, 0)", clock_adjtime(CLOCK_REALTIME, &tx_clock), &tx_clock);
  struct timex tx_readonly = {.modes = ADJ_OFFSET_SS_READ};
  show_read("adjtimex(ADJ_OFFSET_SS_READ)", adjtimex(&tx_readonly), &tx_readonly);
  struct timex tx_mono = {0};
  printf("clock_adjtime(CLOCK_MONOTONIC): %s\n", error_name(clock_adjtime(CLOCK_MONOTONIC, &tx_mono)));
  printf("adjtimex(NULL): %s\n", error_name((int)syscall(SYS_adjtimex, NULL)));

  // Rejected for everyone, before the permission check.
  struct timespec bad_nanos = {0, -1};
  printf("clock_settime(CLOCK_REALTIME, tv_nsec -1): %s\n", error_name(clock_settime(CLOCK_REALTIME, &bad_nanos)));
  printf("clock_settime(CLOCK_REALTIME, NULL): %s\n",
         error_name((int)syscall(SYS_clock_settime, CLOCK_REALTIME, NULL)));
  struct timespec fine = {1, 0};
  printf("clock_settime(CLOCK_MONOTONIC): %s\n", error_name(clock_settime(CLOCK_MONOTONIC, &fine)));
  struct timeval bad_micros = {0, 1000001};
  printf("settimeofday(tv_usec 1000001): %s\n", error_name((int)syscall(SYS_settimeofday, &bad_micros, NULL)));
  struct timeval negative = {-1, 0};
  printf("settimeofday(tv_sec -1): %s\n", error_name((int)syscall(SYS_settimeofday, &negative, NULL)));
  struct timex adjtime_without_singleshot = {.modes = 0x8000};
  printf("adjtimex(ADJ_ADJTIME alone): %s\n", error_name(adjtimex(&adjtime_without_singleshot)));
  struct timex readonly_bad_frequency = {.modes = ADJ_OFFSET_SS_READ | ADJ_FREQUENCY, .freq = LONG_MAX};
  printf("adjtimex(read-only, frequency out of range): %s\n", error_name(adjtimex(&readonly_bad_frequency)));

  // The permission first (EPERM without CAP_SYS_TIME), then the argument (EINVAL).
  struct timezone far_west = {.tz_minuteswest = 10000};
  printf("settimeofday(NULL, tz_minuteswest 10000): %s\n", error_name(settimeofday(NULL, &far_west)));
  struct timex bad_tick = {.modes = ADJ_TICK, .tick = 1};
  printf("adjtimex(ADJ_TICK 1): %s\n", error_name(adjtimex(&bad_tick)));
  struct timex bad_offset = {.modes = ADJ_SETOFFSET, .time = {.tv_sec = 1, .tv_usec = -1}};
  printf("adjtimex(ADJ_SETOFFSET, tv_usec -1): %s\n", error_name(adjtimex(&bad_offset)));
  struct timex bad_offset_clock = {.modes = ADJ_SETOFFSET | ADJ_NANO, .time = {.tv_sec = 1, .tv_usec = 1000000000}};
  printf("clock_adjtime(ADJ_SETOFFSET, tv_nsec 1e9): %s\n",
         error_name(clock_adjtime(CLOCK_REALTIME, &bad_offset_clock)));

  struct timex after = {0};
  show_read("adjtimex(0) at the end", adjtimex(&after), &after);
  return 0;
}
