// Table: the trapped syscalls of x86_64. Adding a row here traps the syscall and routes it to
// its family's handler; nothing else needs to change for the filter.
#include "seccomp/syscall_table.h"

#include <algorithm>
#include <vector>

#include "seccomp/arch.h"

namespace chess::seccomp {
namespace {

using F = SyscallFamily;
using A = ArgKind;
constexpr A _ = A::kNone;

std::vector<SyscallRow> BuildTable() {
  std::vector<SyscallRow> rows = {
      // Futexes: the real syscall never runs; the supervisor keeps every wait queue.
      {SYS_futex, "futex", F::kFutex, true, {A::kAddr, A::kFutexOp, A::kInt, A::kAddr, A::kAddr, A::kInt}},
      {kSysFutexWaitv, "futex_waitv", F::kFutex, true, {A::kAddr, A::kInt, A::kFlags, A::kAddr, A::kInt, _}},
      {kSysFutexWake, "futex_wake", F::kFutex, false, {A::kAddr, A::kHex, A::kInt, A::kFlags, _, _}},
      {kSysFutexWait, "futex_wait", F::kFutex, true, {A::kAddr, A::kInt, A::kHex, A::kFlags, A::kAddr, A::kInt}},
      {kSysFutexRequeue, "futex_requeue", F::kFutex, false, {A::kAddr, A::kFlags, A::kInt, A::kInt, _, _}},
      // Tasks.
      {SYS_clone, "clone", F::kClone, false, {A::kFlags, A::kAddr, A::kAddr, A::kAddr, A::kHex, _}},
      {SYS_clone3, "clone3", F::kClone, false, {A::kAddr, A::kInt, _, _, _, _}},
      {SYS_fork, "fork", F::kClone, false, {_, _, _, _, _, _}},
      {SYS_vfork, "vfork", F::kClone, true, {_, _, _, _, _, _}},
      {SYS_exit, "exit", F::kExit, false, {A::kInt, _, _, _, _, _}},
      {SYS_exit_group, "exit_group", F::kExit, false, {A::kInt, _, _, _, _, _}},
      {SYS_execve, "execve", F::kExec, false, {A::kAddr, A::kAddr, A::kAddr, _, _, _}},
      {SYS_execveat, "execveat", F::kExec, false, {A::kFd, A::kAddr, A::kAddr, A::kAddr, A::kFlags, _}},
      {SYS_set_tid_address, "set_tid_address", F::kThreadSetup, false, {A::kAddr, _, _, _, _, _}},
      {SYS_set_robust_list, "set_robust_list", F::kThreadSetup, false, {A::kAddr, A::kInt, _, _, _, _}},
      {SYS_kill, "kill", F::kSignal, false, {A::kPid, A::kInt, _, _, _, _}},
      {SYS_tkill, "tkill", F::kSignal, false, {A::kPid, A::kInt, _, _, _, _}},
      {SYS_tgkill, "tgkill", F::kSignal, false, {A::kPid, A::kPid, A::kInt, _, _, _}},
      {SYS_rt_sigqueueinfo, "rt_sigqueueinfo", F::kSignal, false, {A::kPid, A::kInt, A::kAddr, _, _, _}},
      {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", F::kSignal, false, {A::kPid, A::kPid, A::kInt, A::kAddr, _, _}},
      {SYS_pidfd_send_signal, "pidfd_send_signal", F::kSignal, false, {A::kFd, A::kInt, A::kAddr, A::kFlags, _, _}},
      {SYS_read, "read", F::kInput, true, {A::kFd, A::kAddr, A::kInt, _, _, _}},
      {SYS_readv, "readv", F::kInput, true, {A::kFd, A::kAddr, A::kInt, _, _, _}},
      {SYS_recvfrom, "recvfrom", F::kInput, true, {A::kFd, A::kAddr, A::kInt, A::kFlags, A::kAddr, A::kAddr}},
      {SYS_recvmsg, "recvmsg", F::kInput, true, {A::kFd, A::kAddr, A::kFlags, _, _, _}},
      {SYS_accept, "accept", F::kInput, true, {A::kFd, A::kAddr, A::kAddr, _, _, _}},
      {SYS_accept4, "accept4", F::kInput, true, {A::kFd, A::kAddr, A::kAddr, A::kFlags, _, _}},
      {SYS_wait4, "wait4", F::kWait, true, {A::kPid, A::kAddr, A::kFlags, A::kAddr, _, _}},
      {SYS_waitid, "waitid", F::kWait, true, {A::kInt, A::kPid, A::kAddr, A::kFlags, A::kAddr, _}},
      // Scheduling.
      {SYS_sched_yield, "sched_yield", F::kYield, false, {_, _, _, _, _, _}},
      {SYS_nanosleep, "nanosleep", F::kSleep, true, {A::kAddr, A::kAddr, _, _, _, _}},
      {SYS_clock_nanosleep, "clock_nanosleep", F::kSleep, true, {A::kInt, A::kFlags, A::kAddr, A::kAddr, _, _}},
      {SYS_sched_getaffinity, "sched_getaffinity", F::kAffinity, false, {A::kPid, A::kInt, A::kAddr, _, _, _}},
      {SYS_sched_setaffinity, "sched_setaffinity", F::kAffinity, false, {A::kPid, A::kInt, A::kAddr, _, _, _}},
      // Refused: each would let the program escape the filter or the serializer.
      {SYS_rseq, "rseq", F::kRefused, false, {A::kAddr, A::kInt, A::kFlags, A::kHex, _, _}},
      {SYS_io_uring_setup, "io_uring_setup", F::kRefused, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_userfaultfd, "userfaultfd", F::kRefused, false, {A::kFlags, _, _, _, _, _}},
      {SYS_ptrace, "ptrace", F::kRefused, false, {A::kInt, A::kPid, A::kAddr, A::kAddr, _, _}},
  };
  for (long i = 0; i < kHypercallCount; ++i) {
    rows.push_back({kHypercallFirst + i, "chess_hypercall", F::kHypercall, false,
                    {A::kInt, A::kHex, A::kHex, _, _, _}});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.nr < b.nr; });
  return rows;
}

const std::vector<SyscallRow>& Table() {
  static const std::vector<SyscallRow> table = BuildTable();
  return table;
}

}  // namespace

std::string_view FamilyName(SyscallFamily family) {
  switch (family) {
    case F::kFutex: return "futex";
    case F::kClone: return "clone";
    case F::kExit: return "exit";
    case F::kExec: return "exec";
    case F::kYield: return "yield";
    case F::kSleep: return "sleep";
    case F::kThreadSetup: return "thread-setup";
    case F::kAffinity: return "affinity";
    case F::kRefused: return "refused";
    case F::kWait: return "wait";
    case F::kSignal: return "signal";
    case F::kInput: return "input";
    case F::kHypercall: return "hypercall";
  }
  return "unknown";
}

std::span<const SyscallRow> SyscallTable() { return Table(); }

const SyscallRow* FindSyscall(long nr) {
  const auto& table = Table();
  auto it = std::lower_bound(table.begin(), table.end(), nr,
                             [](const SyscallRow& row, long n) { return row.nr < n; });
  return it != table.end() && it->nr == nr ? &*it : nullptr;
}

}  // namespace chess::seccomp
