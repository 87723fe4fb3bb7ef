#include "supervisor/report/syscall_format.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "seccomp/arch.h"
#include "seccomp/filter.h"
#include "seccomp/hypercall_abi.h"
#include "seccomp/syscall_table.h"
#include "supervisor/report/syscall_digest.h"

namespace chess::supervisor {
namespace {

std::string Hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string FutexOpName(uint64_t op) {
  static const char* const kNames[] = {
      "FUTEX_WAIT",        "FUTEX_WAKE",         "FUTEX_FD",          "FUTEX_REQUEUE",
      "FUTEX_CMP_REQUEUE", "FUTEX_WAKE_OP",      "FUTEX_LOCK_PI",     "FUTEX_UNLOCK_PI",
      "FUTEX_TRYLOCK_PI",  "FUTEX_WAIT_BITSET",  "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
      "FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2"};
  const uint64_t cmd = op & FUTEX_CMD_MASK;
  std::string name = cmd < std::size(kNames) ? kNames[cmd] : "FUTEX_" + std::to_string(cmd);
  if (op & FUTEX_PRIVATE_FLAG) name += "_PRIVATE";
  if (op & FUTEX_CLOCK_REALTIME) name += "|FUTEX_CLOCK_REALTIME";
  return name;
}

// What a descriptor refers to, as /proc shows it: "pipe:[1234]", "socket:[5678]", a path.
std::string DescribeFd(pid_t tid, uint64_t fd) {
  const std::string link = "/proc/" + std::to_string(tid) + "/fd/" + std::to_string(static_cast<int>(fd));
  char target[512];
  const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return std::to_string(static_cast<int>(fd));
  return std::to_string(static_cast<int>(fd)) + "<" + std::string(target, static_cast<size_t>(n)) + ">";
}

// Untrapped syscalls seen when a thread sleeps in the kernel whose first argument is an fd.
bool FirstArgumentIsFd(int64_t nr) {
  switch (nr) {
    case SYS_read: case SYS_write: case SYS_readv: case SYS_writev: case SYS_pread64:
    case SYS_pwrite64: case SYS_recvfrom: case SYS_sendto: case SYS_recvmsg: case SYS_sendmsg:
    case SYS_accept: case SYS_accept4: case SYS_connect: case SYS_epoll_wait: case SYS_epoll_pwait:
    case SYS_flock: case SYS_fcntl: case SYS_splice: case SYS_sendfile: case SYS_ioctl:
      return true;
    default:
      return false;
  }
}

std::string FormatArg(seccomp::ArgKind kind, uint64_t value) {
  using K = seccomp::ArgKind;
  switch (kind) {
    case K::kAddr: return value == 0 ? "NULL" : Hex(value);
    case K::kHex:
    case K::kFlags: return Hex(value);
    case K::kFutexOp: return FutexOpName(value);
    case K::kInt:
    case K::kFd:
    case K::kPid: return std::to_string(static_cast<int64_t>(static_cast<int32_t>(value)));
    case K::kNone: break;
  }
  return "";
}

// futex(2) means different things by its arguments per operation; show what strace shows.
std::string FormatFutex(const TrappedCall& call) {
  using K = seccomp::ArgKind;
  const uint64_t cmd = call.args[1] & FUTEX_CMD_MASK;
  // Per operation: the kinds of arguments 2..5 (val, timeout-or-val2, uaddr2, val3).
  std::vector<K> rest;
  switch (cmd) {
    case FUTEX_WAIT: rest = {K::kInt, K::kAddr}; break;
    case FUTEX_WAKE: rest = {K::kInt}; break;
    case FUTEX_REQUEUE: rest = {K::kInt, K::kInt, K::kAddr}; break;
    case FUTEX_CMP_REQUEUE:
    case FUTEX_CMP_REQUEUE_PI: rest = {K::kInt, K::kInt, K::kAddr, K::kInt}; break;
    case FUTEX_WAKE_OP: rest = {K::kInt, K::kInt, K::kAddr, K::kHex}; break;
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2: rest = {K::kNone, K::kAddr}; break;
    case FUTEX_UNLOCK_PI:
    case FUTEX_TRYLOCK_PI: break;
    case FUTEX_WAIT_BITSET: rest = {K::kInt, K::kAddr, K::kNone, K::kHex}; break;
    case FUTEX_WAKE_BITSET: rest = {K::kInt, K::kNone, K::kNone, K::kHex}; break;
    case FUTEX_WAIT_REQUEUE_PI: rest = {K::kInt, K::kAddr, K::kAddr}; break;
    default: rest = {K::kHex, K::kHex, K::kHex, K::kHex}; break;
  }
  std::string text = "futex(" + FormatArg(K::kAddr, call.args[0]) + ", " + FutexOpName(call.args[1]);
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != K::kNone) text += ", " + FormatArg(rest[i], call.args[2 + i]);
  }
  return text + ")";
}

// open's flags as strace names them: "O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC".
std::string OpenFlags(uint64_t flags) {
  std::string text = (flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : (flags & O_ACCMODE) == O_RDWR ? "O_RDWR" : "O_RDONLY";
  flags &= ~static_cast<uint64_t>(O_ACCMODE);
  static const std::pair<uint64_t, const char*> kNames[] = {
      {O_CREAT, "O_CREAT"},       {O_EXCL, "O_EXCL"},         {O_NOCTTY, "O_NOCTTY"}, {O_TRUNC, "O_TRUNC"},
      {O_APPEND, "O_APPEND"},     {O_NONBLOCK, "O_NONBLOCK"}, {O_DIRECTORY, "O_DIRECTORY"},
      {O_NOFOLLOW, "O_NOFOLLOW"}, {O_CLOEXEC, "O_CLOEXEC"}};
  for (const auto& [flag, name] : kNames) {
    if ((flags & flag) == flag) {
      text += std::string("|") + name;
      flags &= ~flag;
    }
  }
  if (flags != 0) text += "|" + Hex(flags);
  return text;
}

// One argument of a call that names files, as strace shows it: the path as a string, AT_FDCWD,
// open's flags and modes by name; nullopt: shown as any other.
std::optional<std::string> FormatFileArg(const TrappedCall& call, int i, seccomp::ArgKind kind, pid_t tid) {
  const std::vector<int> paths = PathArguments(call.nr);
  if (std::find(paths.begin(), paths.end(), i) != paths.end()) {
    const std::string path = ReadProgramString(tid, call.args[i]);
    if (!path.empty()) return "\"" + path + "\"";
  }
  if (paths.empty()) return std::nullopt;
  if (kind == seccomp::ArgKind::kFd && static_cast<int32_t>(call.args[i]) == AT_FDCWD) return std::string("AT_FDCWD");
  const bool open = call.nr == SYS_open || call.nr == SYS_openat;
  const int flags_arg = call.nr == SYS_openat ? 2 : 1;
  if (open && i == flags_arg) return OpenFlags(call.args[i]);
  const bool mode = (open && i == flags_arg + 1) || ((call.nr == SYS_mkdir) && i == 1) || (call.nr == SYS_mkdirat && i == 2);
  if (mode) {
    char text[16];
    std::snprintf(text, sizeof(text), "0%llo", static_cast<unsigned long long>(call.args[i] & 07777));
    return std::string(text);
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The preload shim's announcement, in the words of the call it is about to make: "a semaphore
// wait (try) on 0x5555…, announced by the preload shim" (on `object`, the variable, if named).
std::string FormatHypercall(const TrappedCall& call, std::string_view object) {
  switch (call.nr - seccomp::kHypercallFirst) {
    case CHESS_HC_THREAD_STATE:
      return "the preload shim registering the thread's held-lock list at " + Hex(call.args[0]);
    case CHESS_HC_SYNC_OP:
      break;
    default:
      return "an unknown call of the preload shim";
  }
  static const char* const kOperations[] = {
      "",           "a mutex lock",          "a mutex lock",          "a mutex lock",
      "a mutex unlock", "an rwlock read lock", "an rwlock write lock", "an rwlock unlock",
      "a condition-variable wait", "a condition-variable signal", "a condition-variable broadcast",
      "a barrier wait", "a semaphore wait",  "a semaphore post",      "a spin lock",
      "a spin unlock", "a once-only call"};
  const uint64_t op = call.args[0];
  const uint64_t kind = op & CHESS_OP_KIND_MASK;
  std::string text = kind > 0 && kind < std::size(kOperations) ? kOperations[kind] : "a sync operation";
  const bool tried = (op & CHESS_OP_FLAG_TRY) != 0 || kind == CHESS_OP_MUTEX_TRYLOCK;
  const bool timed = (op & CHESS_OP_FLAG_TIMED) != 0 || kind == CHESS_OP_MUTEX_TIMEDLOCK;
  if (tried) text += " (try)";
  if (timed) text += " (with a timeout)";
  return text + " on " + (object.empty() ? Hex(call.args[1]) : std::string(object)) + ", announced by the preload shim";
}

}  // namespace

std::string FormatCall(const TrappedCall& call, pid_t tid, std::string_view object) {
  if (call.nr < 0) return "";
  if (call.nr == SYS_futex) return FormatFutex(call);
  if (call.nr >= seccomp::kHypercallFirst && call.nr < seccomp::kHypercallFirst + seccomp::kHypercallCount) {
    return FormatHypercall(call, object);
  }
  std::string text = seccomp::SyscallName(call.nr) + "(";
  if (const seccomp::SyscallRow* row = seccomp::FindSyscall(call.nr)) {
    for (int i = 0; i < 6 && row->args[i] != seccomp::ArgKind::kNone; ++i) {
      if (i > 0) text += ", ";
      if (tid != 0) {
        if (auto shown = FormatFileArg(call, i, row->args[i], tid)) {
          text += *shown;
          continue;
        }
      }
      text += row->args[i] == seccomp::ArgKind::kFd && tid != 0 ? DescribeFd(tid, call.args[i])
                                                                 : FormatArg(row->args[i], call.args[i]);
    }
  } else {
    // Untrapped calls (seen when a thread sleeps in the kernel): the first argument is an fd for
    // nearly every blocking call; the next two are shown raw.
    text += FirstArgumentIsFd(call.nr) && tid != 0 ? DescribeFd(tid, call.args[0])
                                                   : std::to_string(static_cast<int64_t>(call.args[0]));
    text += ", " + Hex(call.args[1]) + ", " + std::to_string(static_cast<int64_t>(call.args[2]));
  }
  return text + ")";
}

std::string DescribeResource(const Thread& thread) {
  if (thread.in_vfork) return "a vfork child";
  switch (thread.call.nr) {
    case SYS_futex:
      return "futex " + Hex(thread.call.args[0]);
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
      return "a timer";
    case SYS_read:
    case SYS_readv:
    case SYS_write:
    case SYS_writev:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_sendto:
    case SYS_sendmsg:
    case SYS_accept:
    case SYS_accept4:
    case SYS_connect:
      return "fd " + std::to_string(static_cast<int64_t>(thread.call.args[0]));
    case SYS_wait4:
    case SYS_waitid: {
      const auto pid = static_cast<int32_t>(thread.call.args[thread.call.nr == SYS_wait4 ? 0 : 1]);
      const bool one = thread.call.nr == SYS_wait4 ? pid > 0 : thread.call.args[0] == P_PID;
      return one ? "child " + std::to_string(pid) : "any child";
    }
    default:
      return "";
  }
}

}  // namespace chess::supervisor
