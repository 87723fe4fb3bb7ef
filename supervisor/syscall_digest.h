// What --check-determinism compares of a syscall (search/determinism_check.h): at its entry,
// the call and what it hands the kernel that another run could differ in — the bytes it writes,
// the paths it names, its scalar arguments; at its exit, what it returns and the bytes the
// kernel wrote back to the program.
#pragma once

#include "search/determinism_check.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// At a seccomp stop (thread.call and thread.regs are the call's).
search::SyscallEvent EntryEvent(const Thread& thread);
// At the call's syscall-exit stop (thread.regs hold its result).
search::SyscallEvent ExitEvent(const Thread& thread);

}  // namespace chess::supervisor
