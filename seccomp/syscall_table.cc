// Table: the trapped syscalls of x86_64. Adding a row here traps the syscall and routes it to
// its family's handler; nothing else needs to change for the filter.
#include "seccomp/syscall_table.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>

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
      {SYS_recvmmsg, "recvmmsg", F::kInput, true, {A::kFd, A::kAddr, A::kInt, A::kFlags, A::kAddr, _}},
      // Output: pread/pwrite are not here — they need a seekable file, which never blocks.
      {SYS_write, "write", F::kOutput, true, {A::kFd, A::kAddr, A::kInt, _, _, _}},
      {SYS_writev, "writev", F::kOutput, true, {A::kFd, A::kAddr, A::kInt, _, _, _}},
      {SYS_sendto, "sendto", F::kOutput, true, {A::kFd, A::kAddr, A::kInt, A::kFlags, A::kAddr, A::kInt}},
      {SYS_sendmsg, "sendmsg", F::kOutput, true, {A::kFd, A::kAddr, A::kFlags, _, _, _}},
      {SYS_sendmmsg, "sendmmsg", F::kOutput, true, {A::kFd, A::kAddr, A::kInt, A::kFlags, _, _}},
      {SYS_splice, "splice", F::kSplice, true, {A::kFd, A::kAddr, A::kFd, A::kAddr, A::kInt, A::kFlags}},
      {SYS_tee, "tee", F::kSplice, true, {A::kFd, A::kFd, A::kInt, A::kFlags, _, _}},
      {SYS_vmsplice, "vmsplice", F::kSplice, true, {A::kFd, A::kAddr, A::kInt, A::kFlags, _, _}},
      {SYS_sendfile, "sendfile", F::kSplice, true, {A::kFd, A::kFd, A::kAddr, A::kInt, _, _}},
      // Readiness waits.
      {SYS_poll, "poll", F::kPoll, true, {A::kAddr, A::kInt, A::kInt, _, _, _}},
      {SYS_ppoll, "ppoll", F::kPoll, true, {A::kAddr, A::kInt, A::kAddr, A::kAddr, A::kInt, _}},
      {SYS_select, "select", F::kPoll, true, {A::kInt, A::kAddr, A::kAddr, A::kAddr, A::kAddr, _}},
      {SYS_pselect6, "pselect6", F::kPoll, true, {A::kInt, A::kAddr, A::kAddr, A::kAddr, A::kAddr, A::kAddr}},
      {SYS_epoll_wait, "epoll_wait", F::kPoll, true, {A::kFd, A::kAddr, A::kInt, A::kInt, _, _}},
      {SYS_epoll_pwait, "epoll_pwait", F::kPoll, true, {A::kFd, A::kAddr, A::kInt, A::kInt, A::kAddr, A::kInt}},
      {SYS_epoll_pwait2, "epoll_pwait2", F::kPoll, true, {A::kFd, A::kAddr, A::kInt, A::kAddr, A::kAddr, A::kInt}},
      // Locks on files; only the calls that can wait are trapped.
      {SYS_flock, "flock", F::kFileLock, true, {A::kFd, A::kFlags, _, _, _, _},
       {1, LOCK_NB | LOCK_UN, {0, 0}, 1}},
      {SYS_fcntl, "fcntl", F::kFileLock, true, {A::kFd, A::kInt, A::kAddr, _, _, _},
       {1, 0xffffffff, {F_SETLKW, F_OFD_SETLKW}, 2}},
      // Names other processes see: sockets' addresses and the file system. Scheduling points
      // only with cross-process points, so a harness's "is the server listening yet?" and
      // "does the lock file exist?" races are explored; otherwise not even trapped.
      {SYS_bind, "bind", F::kPublish, false, {A::kFd, A::kAddr, A::kInt, _, _, _}, {}, true},
      {SYS_listen, "listen", F::kPublish, false, {A::kFd, A::kInt, _, _, _, _}, {}, true},
      {SYS_connect, "connect", F::kPublish, false, {A::kFd, A::kAddr, A::kInt, _, _, _}, {}, true},
      {SYS_shutdown, "shutdown", F::kPublish, false, {A::kFd, A::kInt, _, _, _, _}, {}, true},
      {SYS_open, "open", F::kPublish, false, {A::kAddr, A::kFlags, A::kInt, _, _, _},
       {1, O_CREAT, {O_CREAT, 0}, 1}, true},
      {SYS_openat, "openat", F::kPublish, false, {A::kFd, A::kAddr, A::kFlags, A::kInt, _, _},
       {2, O_CREAT, {O_CREAT, 0}, 1}, true},
      {SYS_unlink, "unlink", F::kPublish, false, {A::kAddr, _, _, _, _, _}, {}, true},
      {SYS_unlinkat, "unlinkat", F::kPublish, false, {A::kFd, A::kAddr, A::kFlags, _, _, _}, {}, true},
      {SYS_rename, "rename", F::kPublish, false, {A::kAddr, A::kAddr, _, _, _, _}, {}, true},
      {SYS_renameat, "renameat", F::kPublish, false, {A::kFd, A::kAddr, A::kFd, A::kAddr, _, _}, {}, true},
      {SYS_renameat2, "renameat2", F::kPublish, false, {A::kFd, A::kAddr, A::kFd, A::kAddr, A::kFlags, _}, {}, true},
      {SYS_mkdir, "mkdir", F::kPublish, false, {A::kAddr, A::kInt, _, _, _, _}, {}, true},
      {SYS_mkdirat, "mkdirat", F::kPublish, false, {A::kFd, A::kAddr, A::kInt, _, _, _}, {}, true},
      {SYS_rmdir, "rmdir", F::kPublish, false, {A::kAddr, _, _, _, _, _}, {}, true},
      {SYS_mknod, "mknod", F::kPublish, false, {A::kAddr, A::kInt, A::kHex, _, _, _}, {}, true},
      {SYS_mknodat, "mknodat", F::kPublish, false, {A::kFd, A::kAddr, A::kInt, A::kHex, _, _}, {}, true},
      {SYS_link, "link", F::kPublish, false, {A::kAddr, A::kAddr, _, _, _, _}, {}, true},
      {SYS_linkat, "linkat", F::kPublish, false, {A::kFd, A::kAddr, A::kFd, A::kAddr, A::kFlags, _}, {}, true},
      {SYS_symlink, "symlink", F::kPublish, false, {A::kAddr, A::kAddr, _, _, _, _}, {}, true},
      {SYS_symlinkat, "symlinkat", F::kPublish, false, {A::kAddr, A::kFd, A::kAddr, _, _, _}, {}, true},
      // SysV IPC and POSIX message queues.
      {SYS_semop, "semop", F::kIpc, true, {A::kInt, A::kAddr, A::kInt, _, _, _}},
      {SYS_semtimedop, "semtimedop", F::kIpc, true, {A::kInt, A::kAddr, A::kInt, A::kAddr, _, _}},
      {SYS_msgsnd, "msgsnd", F::kIpc, true, {A::kInt, A::kAddr, A::kInt, A::kFlags, _, _}},
      {SYS_msgrcv, "msgrcv", F::kIpc, true, {A::kInt, A::kAddr, A::kInt, A::kInt, A::kFlags, _}},
      {SYS_mq_timedsend, "mq_timedsend", F::kIpc, true, {A::kFd, A::kAddr, A::kInt, A::kInt, A::kAddr, _}},
      {SYS_mq_timedreceive, "mq_timedreceive", F::kIpc, true, {A::kFd, A::kAddr, A::kInt, A::kAddr, A::kAddr, _}},
      // Time and randomness (the vDSO is hidden, so these are syscalls).
      {SYS_clock_gettime, "clock_gettime", F::kTime, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_gettimeofday, "gettimeofday", F::kTime, false, {A::kAddr, A::kAddr, _, _, _, _}},
      {SYS_time, "time", F::kTime, false, {A::kAddr, _, _, _, _, _}},
      {SYS_getcpu, "getcpu", F::kTime, false, {A::kAddr, A::kAddr, A::kAddr, _, _, _}},
      {SYS_times, "times", F::kTime, false, {A::kAddr, _, _, _, _, _}},
      {SYS_getrusage, "getrusage", F::kTime, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_sysinfo, "sysinfo", F::kTime, false, {A::kAddr, _, _, _, _, _}},
      // Setting the clocks: the program's own, in virtual time; read-only adjtimex modes too.
      {SYS_clock_settime, "clock_settime", F::kClockSet, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_settimeofday, "settimeofday", F::kClockSet, false, {A::kAddr, A::kAddr, _, _, _, _}},
      {SYS_adjtimex, "adjtimex", F::kClockSet, false, {A::kAddr, _, _, _, _, _}},
      {SYS_clock_adjtime, "clock_adjtime", F::kClockSet, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_getrandom, "getrandom", F::kRandom, false, {A::kAddr, A::kInt, A::kFlags, _, _, _}},
      {SYS_alarm, "alarm", F::kTimer, false, {A::kInt, _, _, _, _, _}},
      {SYS_getitimer, "getitimer", F::kTimer, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_setitimer, "setitimer", F::kTimer, false, {A::kInt, A::kAddr, A::kAddr, _, _, _}},
      {SYS_timer_create, "timer_create", F::kTimer, false, {A::kInt, A::kAddr, A::kAddr, _, _, _}},
      {SYS_timer_settime, "timer_settime", F::kTimer, false, {A::kInt, A::kFlags, A::kAddr, A::kAddr, _, _}},
      {SYS_timer_gettime, "timer_gettime", F::kTimer, false, {A::kInt, A::kAddr, _, _, _, _}},
      {SYS_timer_getoverrun, "timer_getoverrun", F::kTimer, false, {A::kInt, _, _, _, _, _}},
      {SYS_timer_delete, "timer_delete", F::kTimer, false, {A::kInt, _, _, _, _, _}},
      {SYS_timerfd_settime, "timerfd_settime", F::kTimer, false, {A::kFd, A::kFlags, A::kAddr, A::kAddr, _, _}},
      {SYS_timerfd_gettime, "timerfd_gettime", F::kTimer, false, {A::kFd, A::kAddr, _, _, _, _}},
      // Waiting for signals.
      {SYS_pause, "pause", F::kSignalWait, true, {_, _, _, _, _, _}},
      {SYS_rt_sigsuspend, "rt_sigsuspend", F::kSignalWait, true, {A::kAddr, A::kInt, _, _, _, _}},
      {SYS_rt_sigtimedwait, "rt_sigtimedwait", F::kSignalWait, true, {A::kAddr, A::kAddr, A::kAddr, A::kInt, _, _}},
      {SYS_restart_syscall, "restart_syscall", F::kRestart, true, {_, _, _, _, _, _}},
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
      // The program's own seccomp filters: chess-trace keeps a copy, so that nothing it injects
      // or rewrites is a call they refuse.
      {SYS_seccomp, "seccomp", F::kSeccomp, false, {A::kInt, A::kFlags, A::kAddr, _, _, _}},
      // prctl only for seccomp (PR_SET_SECCOMP is one of those filters) and the TSC: the
      // program's own state, not chess-trace's filter and rdtsc trap. The option is an int.
      {SYS_prctl, "prctl", F::kPrctl, false, {A::kInt, A::kInt, A::kAddr, _, _, _},
       {0, 0xffffffff, {PR_SET_SECCOMP, PR_GET_SECCOMP, PR_SET_TSC, PR_GET_TSC}, 4}},
      // SIGSEGV's action and blocked bit, which the kernel changes when an emulated rdtsc faults
      // (timestamp_counter.cc), and the masks handlers run under.
      {SYS_rt_sigaction, "rt_sigaction", F::kSignalState, false, {A::kInt, A::kAddr, A::kAddr, A::kInt, _, _}},
      {SYS_rt_sigprocmask, "rt_sigprocmask", F::kSignalState, false, {A::kInt, A::kAddr, A::kAddr, A::kInt, _, _}},
      {SYS_rt_sigreturn, "rt_sigreturn", F::kSignalState, false, {_, _, _, _, _, _}},
      // The program tracing its own threads: emulated, the supervisor being their one tracer.
      {SYS_ptrace, "ptrace", F::kPtrace, false, {A::kInt, A::kPid, A::kAddr, A::kAddr, _, _}},
      // Code appearing (ld.so mapping a library's text, dlopen, a JIT): with atomic points its
      // atomic instructions get their breakpoints at the call's exit, before any of it runs.
      // Only calls that make memory executable: prot is the third argument of all three.
      {SYS_mmap, "mmap", F::kCodeMapping, false, {A::kAddr, A::kInt, A::kFlags, A::kFlags, A::kFd, A::kHex},
       {2, PROT_EXEC, {PROT_EXEC}, 1}, false, true},
      {SYS_mprotect, "mprotect", F::kCodeMapping, false, {A::kAddr, A::kInt, A::kFlags, _, _, _},
       {2, PROT_EXEC, {PROT_EXEC}, 1}, false, true},
      {SYS_pkey_mprotect, "pkey_mprotect", F::kCodeMapping, false, {A::kAddr, A::kInt, A::kFlags, A::kInt, _, _},
       {2, PROT_EXEC, {PROT_EXEC}, 1}, false, true},
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

bool TrapCondition::Matches(const uint64_t (&call_args)[6]) const {
  if (Always()) return true;
  const uint64_t masked = call_args[arg] & mask;
  for (size_t i = 0; i < value_count; ++i) {
    if (masked == values[i]) return true;
  }
  return false;
}

std::span<const SyscallRow> SyscallTable() { return Table(); }

std::vector<SyscallRow> TrappedRows(TrapLayers layers) {
  std::vector<SyscallRow> rows;
  for (const SyscallRow& row : Table()) {
    if (row.cross_process && !layers.cross_process) continue;
    if (row.code_mapping && !layers.code_mappings) continue;
    rows.push_back(row);
  }
  return rows;
}

const SyscallRow* FindSyscall(long nr) {
  const auto& table = Table();
  auto it = std::lower_bound(table.begin(), table.end(), nr,
                             [](const SyscallRow& row, long n) { return row.nr < n; });
  return it != table.end() && it->nr == nr ? &*it : nullptr;
}

}  // namespace chess::seccomp
