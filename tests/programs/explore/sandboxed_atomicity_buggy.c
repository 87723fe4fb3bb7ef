/* sandboxed_atomicity_buggy: atomicity_buggy.c inside a sandbox.
 *
 * The same program, which first installs a default-kill seccomp filter (../sandbox_filter.h)
 * on its one thread; the workers inherit it. Its bug and the schedule that exposes it are
 * atomicity_buggy's, and the search must find it the same way: the sandbox changes none of its
 * scheduling points (the preload shim announces each lock operation by a trap the filter never
 * sees), so it is found after exactly as many executions, with the same preemption.
 *
 * Correct twin: sandboxed_atomicity_fixed.c. */
#include "../sandbox_filter.h"

#define main unsandboxed_main
#include "atomicity_buggy.c"
#undef main

int main(void) {
  install_sandbox(SANDBOX_PRCTL);
  return unsandboxed_main();
}
