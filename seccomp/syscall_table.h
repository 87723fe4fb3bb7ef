// The syscall table: one row per trapped syscall. It is the single source of truth that both
// compiles the BPF filter (seccomp/filter.cc) and dispatches stops to handlers (supervisor/).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
  kOutput,       // write, writev, send…: disabled while full; large writes go in pieces
  kPoll,         // poll, select, epoll_wait…: disabled until a descriptor is ready or time is up
  kSplice,       // splice, tee, vmsplice, sendfile: both ends must be ready
  kSignalWait,   // pause, rt_sigsuspend, rt_sigtimedwait: disabled until a signal comes
  kRestart,      // restart_syscall: the emulated wait a signal interrupted goes on
  kFileLock,     // flock, fcntl(F_SETLKW): disabled while another holder has the lock
  kIpc,          // SysV semaphores and message queues, POSIX message queues
  kTime,         // clock_gettime, gettimeofday, time, getcpu: answered from the virtual clock
  kRandom,       // getrandom: answered from the run's seeded generator
  kTimer,        // alarm, itimers, POSIX timers, timerfd settings: kept in virtual time
  kPublish,      // bind, connect, unlink, rename, mkdir, open(O_CREAT)…: names other processes see
  kSeccomp,      // seccomp, prctl(PR_SET_SECCOMP): the program installs a filter of its own
};

std::string_view FamilyName(SyscallFamily family);

// How an argument is shown in reports.
enum class ArgKind : uint8_t { kNone, kInt, kHex, kAddr, kFd, kFutexOp, kFlags, kPid };

// A row that traps only some calls of its syscall: the filter compares one argument, so the
// calls that cannot block (fcntl(F_GETFL), flock(LOCK_NB)) still cost nothing. The row traps
// when `(args[arg] & mask)` equals one of `values`.
struct TrapCondition {
  int arg = -1;  // -1: always trap
  uint64_t mask = ~uint64_t{0};
  std::array<uint64_t, 2> values{};
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
};

// Every trapped syscall of the host architecture, sorted by number.
std::span<const SyscallRow> SyscallTable();

// The rows a filter traps: every row, or all but the cross-process ones.
std::vector<SyscallRow> TrappedRows(bool cross_process_points);

// The row for `nr`, or nullptr when the syscall is not trapped.
const SyscallRow* FindSyscall(long nr);

// The name of any syscall number (trapped or not) for reports: "read", or "syscall_999".
std::string SyscallName(long nr);

}  // namespace chess::seccomp
