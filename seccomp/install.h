// Installs a compiled filter in the calling process. Async-signal-safe: called by the child
// between fork and exec, where nothing that allocates or locks may run.
#pragma once

#include "seccomp/filter.h"

namespace chess::seccomp {

// Returns 0 or an errno value. `no_new_privs` is required unless the caller has CAP_SYS_ADMIN;
// without it, setuid programs keep working inside the tree.
int InstallFilter(const BpfProgram& program, bool no_new_privs) noexcept;

}  // namespace chess::seccomp
