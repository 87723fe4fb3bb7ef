/* Dies of SIGSEGV after printing: exit status 139 natively (as a shell reports it) and under
 * chess-trace. */
#include <stdio.h>

int main(void) {
  puts("about to crash");
  fflush(stdout);
  volatile int* nowhere = (int*)16;
  return *nowhere;
}
