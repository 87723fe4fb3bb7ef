/* sandboxed_atomicity_fixed: atomicity_fixed.c inside the same sandbox as
 * sandboxed_atomicity_buggy.c. Correct under every schedule, and its schedule space is
 * atomicity_fixed's. */
#include "../sandbox_filter.h"

#define main unsandboxed_main
#include "atomicity_fixed.c"
#undef main

int main(void) {
  install_sandbox(SANDBOX_PRCTL);
  return unsandboxed_main();
}
