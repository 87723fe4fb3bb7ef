// What --check-determinism compares of a syscall (search/determinism_check.h): at its entry,
// the call and what it hands the kernel that another run could differ in — the bytes it writes,
// the paths it names, its scalar arguments; at its exit, what it returns and the bytes the
// kernel wrote back to the program.
#pragma once

#include <vector>

#include "search/determinism_check.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// At a seccomp stop (thread.call and thread.regs are the call's).
search::SyscallEvent EntryEvent(const Thread& thread);
// At the call's syscall-exit stop (thread.regs hold its result).
search::SyscallEvent ExitEvent(const Thread& thread);

// Just before the kernel runs a call that creates, removes or renames a name other processes
// see (open with O_CREAT, mkdir, unlink, rename, link, symlink, mknod, bind or connect of a Unix
// socket path), for each name it touches, two events: the call at its entry (`sample`: the
// name as the program wrote it; `target`: where it leads, absolute, as the program sees the
// file system) and what is there now (an exit event: result 0 with the kind of file in
// `sample`, or the lookup's -errno — -ENOENT: nothing).
std::vector<search::SyscallEvent> NameEvents(const Thread& thread);

// The arguments of syscall `nr` that name a file (paths the program passes), in order.
std::vector<int> PathArguments(int64_t nr);
// A NUL-terminated string of the program's, up to 4 KiB ("" when it cannot be read).
std::string ReadProgramString(pid_t tid, uint64_t address);

}  // namespace chess::supervisor
