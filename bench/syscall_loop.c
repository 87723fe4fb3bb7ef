/* 1M untrapped syscalls; prints "ns_per_call N". Run natively and under `chess-trace run`. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/syscall_loop.h"

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 1000000;
  printf("ns_per_call %.1f\n", chess_bench_ns_per_getppid(count));
  return 0;
}
