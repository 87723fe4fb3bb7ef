// The syscall table: one row per trapped syscall. It is the single source of truth that both
// compiles the BPF filter (seccomp/filter.cc) and dispatches stops to handlers (supervisor/).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seccomp/syscall_family.h"

namespace chess::seccomp {

// How an argument is shown in reports.
enum class ArgKind : uint8_t { kNone, kInt, kHex, kAddr, kFd, kFutexOp, kFlags, kPid };

// A row that traps only some calls of its syscall: the filter compares one argument, so the
// calls that cannot block (fcntl(F_GETFL), flock(LOCK_NB)) still cost nothing. The row traps
// when `(args[arg] & mask)` equals one of `values`.
struct TrapCondition {
  int arg = -1;  // -1: always trap
  uint64_t mask = ~uint64_t{0};
  std::array<uint64_t, 4> values{};
  size_t value_count = 0;

  bool Always() const { return arg < 0; }
  bool Matches(const uint64_t (&call_args)[6]) const;
};

struct SyscallRow {
  long nr;
  std::string_view name;
  SyscallFamily family;
  bool may_block;  // can leave the thread waiting for another thread or the outside world
  std::array<ArgKind, 6> args;
  TrapCondition when{};
  // Trapped only with cross-process scheduling points (--sync-points processes): the call
  // publishes or looks up a name other processes share, and nothing else needs it.
  bool cross_process = false;
  // Trapped only with atomic points (--sync-points atomics): the call maps code, whose atomic
  // instructions get their breakpoints before it runs.
  bool code_mapping = false;
};

// The layers of scheduling points the filter traps rows for, besides the rows every run traps.
struct TrapLayers {
  bool cross_process = false;  // rows marked cross_process
  bool code_mappings = false;  // rows marked code_mapping
};

// Every trapped syscall of the host architecture, sorted by number.
std::span<const SyscallRow> SyscallTable();

// The rows a filter traps: those every run traps, and those of the layers asked for.
std::vector<SyscallRow> TrappedRows(TrapLayers layers);

// The row for `nr`, or nullptr when the syscall is not trapped. It names a stop's family (the
// filter's data bits are not read back: see SyscallFamily).
const SyscallRow* FindSyscall(long nr);

// The name of any syscall number (trapped or not) for reports: "read", or "syscall_999".
std::string SyscallName(long nr);

}  // namespace chess::seccomp
