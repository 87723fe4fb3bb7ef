// The BPF filter compiled from the syscall table, and the libseccomp look-ups chess-trace needs.
// filter.cc is the only file that includes <seccomp.h>.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "search/result.h"
#include "seccomp/syscall_table.h"

namespace chess::seccomp {

struct BpfProgram {
  std::vector<sock_filter> instructions;
};

// Traps every row of `table` with SECCOMP_RET_TRACE, the row's family in the data bits, and lets
// everything else run at full speed. Syscalls made through another ABI (i386 `int 0x80`, x32)
// fail with ENOSYS in the kernel, the serializer could not see them — but for i386's exits,
// which stop as the exit family's, and a few i386 calls harmless to run (read, write, close,
// getpid…). Built in the supervisor, installed
// by the child after fork. With `observe_all`, every other syscall is trapped too, with
// kObserveOnly in the data bits (for --check-determinism, which looks at every result).
Result<BpfProgram> CompileFilter(std::span<const SyscallRow> table, bool observe_all = false);

// The data bits of a syscall trapped only to be observed (see CompileFilter).
inline constexpr uint16_t kObserveOnly = 0xffff;

// The name of any syscall number of the host architecture ("read"), or "syscall_N".
std::string SyscallName(long nr);

}  // namespace chess::seccomp
