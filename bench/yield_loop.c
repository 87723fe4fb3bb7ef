/* One thread calls sched_yield N times (default 1,000,000): under chess-trace, N scheduling
 * decisions that are all the same situation — the longest possible run for a trace's
 * run-length encoding. Prints "yields N". */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 1000000;
  for (long i = 0; i < count; ++i) sched_yield();
  printf("yields %ld\n", count);
  return 0;
}
