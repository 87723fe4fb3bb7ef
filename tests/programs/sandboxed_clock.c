/* sandboxed_clock: a correct program whose sandbox leaves out the clock's system calls, then
 * reads the clock. Natively the C library reads CLOCK_MONOTONIC through the vDSO, without a
 * system call, so the filter never sees it and the program prints "read the clock". Under
 * chess-trace with virtual time the vDSO is hidden, the read becomes a system call, and the
 * filter kills the program: chess-trace must say that this is its own doing (an error, exit
 * 125), not report a bug of the program. With --real-time the vDSO stays and it runs as natively. */
#include <stdio.h>
#include <time.h>

#include "sandbox_filter.h"

int main(void) {
  install_sandbox(SANDBOX_PRCTL | SANDBOX_WITHOUT_CLOCK);
  struct timespec now;
  if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 1;
  printf("read the clock\n");
  return 0;
}
