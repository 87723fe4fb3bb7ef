// The syscall table: one row per trapped syscall. It is the single source of truth that both
// compiles the BPF filter (seccomp/filter.cc) and dispatches stops to handlers (supervisor/).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace chess::seccomp {

// The handler family. Travels in SECCOMP_RET_DATA, so a stop names its family without a lookup.
enum class SyscallFamily : uint16_t {
  kFutex = 1,    // futex, futex_waitv, futex2: emulated entirely by the supervisor
  kClone,        // clone, clone3, fork, vfork: new threads start stopped
  kExit,         // exit, exit_group
  kExec,         // execve, execveat
  kYield,        // sched_yield
  kSleep,        // nanosleep, clock_nanosleep
  kThreadSetup,  // set_tid_address, set_robust_list: remembered for exit-time futex writes
  kAffinity,     // sched_{get,set}affinity: the program sees the machine, not the pinning
  kRefused,      // rseq, io_uring_setup, userfaultfd, ptrace: refused with a clear reason
  kWait,         // wait4, waitid: disabled until a child changes state
  kSignal,       // kill, tkill, tgkill, …: the target may have to leave an emulated wait
  kInput,        // read, recv…, accept: disabled while the descriptor has nothing to give
  kHypercall,    // the preload shim's announcements
};

std::string_view FamilyName(SyscallFamily family);

// How an argument is shown in reports.
enum class ArgKind : uint8_t { kNone, kInt, kHex, kAddr, kFd, kFutexOp, kFlags, kPid };

struct SyscallRow {
  long nr;
  std::string_view name;
  SyscallFamily family;
  bool may_block;  // can leave the thread waiting for another thread or the outside world
  std::array<ArgKind, 6> args;
};

// Every trapped syscall of the host architecture, sorted by number.
std::span<const SyscallRow> SyscallTable();

// The row for `nr`, or nullptr when the syscall is not trapped.
const SyscallRow* FindSyscall(long nr);

// The name of any syscall number (trapped or not) for reports: "read", or "syscall_999".
std::string SyscallName(long nr);

}  // namespace chess::seccomp
