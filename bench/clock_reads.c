/* `count` reads of CLOCK_MONOTONIC; prints "ns_per_call N" as the program's own clock measures
 * it. Mode "vdso" (default) calls clock_gettime, which the C library answers from the vDSO when
 * there is one; mode "syscall" makes the system call itself. Under `chess-trace run` the vDSO is
 * hidden and the clock is virtual, so the figure printed is virtual too: the benchmark takes the
 * emulated cost from the wall time of whole runs instead (count reads minus zero reads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 200000;
  const int raw = argc > 2 && strcmp(argv[2], "syscall") == 0;
  struct timespec start, end, ts;
  clock_gettime(CLOCK_MONOTONIC, &start);
  if (raw) {
    for (long i = 0; i < count; ++i) syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  } else {
    for (long i = 0; i < count; ++i) clock_gettime(CLOCK_MONOTONIC, &ts);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
  printf("ns_per_call %.1f\n", count > 0 ? ns / (double)count : 0.0);
  return 0;
}
