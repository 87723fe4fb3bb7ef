/* The loop every untrapped-syscall configuration runs: `count` getppid calls, timed with the
 * vDSO clock (not trapped), reported in nanoseconds per call. */
#ifndef CHESS_BENCH_SYSCALL_LOOP_H
#define CHESS_BENCH_SYSCALL_LOOP_H

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline double chess_bench_ns_per_getppid(long count) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < count; ++i) syscall(SYS_getppid);
  clock_gettime(CLOCK_MONOTONIC, &end);
  return ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / (double)count;
}

#endif
