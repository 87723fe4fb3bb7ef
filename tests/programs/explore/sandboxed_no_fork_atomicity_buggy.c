/* sandboxed_no_fork_atomicity_buggy: atomicity_buggy.c inside a sandbox that allows clone only
 * for threads (CLONE_THREAD in its flags), as sandboxes do that must not fork.
 *
 * explore's fork server would fork its template with a clone of its own in place of the
 * program's first thread creation — a clone this filter kills. So it must make no template
 * (and say why), start every execution by exec instead, and find atomicity_buggy's bug after
 * the same executions. */
#include "../sandbox_filter.h"

#define main unsandboxed_main
#include "atomicity_buggy.c"
#undef main

int main(void) {
  install_sandbox(SANDBOX_PRCTL | SANDBOX_CLONE_THREADS_ONLY);
  return unsandboxed_main();
}
