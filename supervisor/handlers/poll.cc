// poll, ppoll, select, pselect6, epoll_wait, epoll_pwait, epoll_pwait2: a thread none of whose
// descriptors is ready is disabled until one is (an epoll descriptor is itself readable when
// it has events to report) or its timeout passes. Then the kernel runs the call, which returns
// at once: with the ready descriptors, or — after the timeout, which the supervisor sets to zero
// — with none, having written the results exactly as it would have.
#include <poll.h>
#include <sys/select.h>
#include <sys/syscall.h>

#include <cerrno>
#include <climits>
#include <vector>

#include "supervisor/handlers/handler.h"
#include "supervisor/handlers/pending_signals.h"

namespace chess::supervisor {
namespace {

constexpr short kAlwaysReported = POLLERR | POLLHUP | POLLNVAL;
// Below the stack's red zone, where epoll_pwait2 is given a zero timeout of its own (the
// program's timespec is const to it).
constexpr uint64_t kScratchBelowStack = 256;

struct PollCall {
  std::vector<FdInterest> fds;
  std::optional<int64_t> timeout;  // nanoseconds; nullopt: forever
  std::optional<uint64_t> mask;    // the call's own signal mask
};

std::optional<uint64_t> ReadMask(const RemoteMemory& memory, uint64_t address) {
  if (address == 0) return std::nullopt;
  return memory.Read<uint64_t>(address);
}

// A timespec or timeval pointer: NULL is forever. nullopt in `valid` when the kernel would
// refuse it, so that it does.
bool ReadTimeout(const RemoteMemory& memory, uint64_t address, bool timeval_units,
                 std::optional<int64_t>& timeout) {
  timeout.reset();
  if (address == 0) return true;
  if (timeval_units) {
    auto tv = memory.Read<timeval>(address);
    if (!tv || tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1'000'000) return false;
    timeout = static_cast<int64_t>(tv->tv_sec) * kNanosPerSecond + static_cast<int64_t>(tv->tv_usec) * 1000;
    return true;
  }
  int error = 0;
  timeout = ReadTimespec(memory, address, &error);
  return timeout.has_value();
}

bool ReadPollFds(const RemoteMemory& memory, uint64_t address, uint64_t count, std::vector<FdInterest>& out) {
  if (count > static_cast<uint64_t>(INT_MAX / sizeof(pollfd))) return false;
  std::vector<pollfd> fds(count);
  if (!memory.Read(address, fds.data(), count * sizeof(pollfd))) return false;
  for (const pollfd& p : fds) {
    if (p.fd >= 0) out.push_back({p.fd, static_cast<short>(p.events | kAlwaysReported)});
  }
  return true;
}

bool ReadFdSets(const RemoteMemory& memory, uint64_t nfds, const uint64_t (&sets)[3], std::vector<FdInterest>& out) {
  if (nfds > FD_SETSIZE * 64) return false;
  const size_t words = (nfds + 63) / 64;
  static constexpr short kEvents[3] = {POLLIN | POLLHUP | POLLERR, POLLOUT | POLLERR, POLLPRI};
  std::vector<uint64_t> bits(words);
  std::vector<short> events(nfds, 0);
  for (int set = 0; set < 3; ++set) {
    if (sets[set] == 0) continue;
    if (!memory.Read(sets[set], bits.data(), words * sizeof(uint64_t))) return false;
    for (uint64_t fd = 0; fd < nfds; ++fd) {
      if (bits[fd / 64] & (uint64_t{1} << (fd % 64))) events[fd] |= kEvents[set];
    }
  }
  for (uint64_t fd = 0; fd < nfds; ++fd) {
    if (events[fd] != 0) out.push_back({static_cast<int>(fd), events[fd]});
  }
  return true;
}

// nullopt: let the kernel answer (bad arguments, or more than is worth looking at).
std::optional<PollCall> DecodeCall(SyscallContext& ctx) {
  const RemoteMemory memory = ctx.Memory();
  PollCall call;
  bool ok = true;
  switch (ctx.thread.call.nr) {
    case SYS_poll: {
      ok = ReadPollFds(memory, ctx.Arg(0), ctx.Arg(1), call.fds);
      const auto ms = static_cast<int32_t>(ctx.Arg(2));
      if (ms >= 0) call.timeout = int64_t{ms} * 1'000'000;
      break;
    }
    case SYS_ppoll:
      ok = ReadPollFds(memory, ctx.Arg(0), ctx.Arg(1), call.fds) && ReadTimeout(memory, ctx.Arg(2), false, call.timeout);
      call.mask = ReadMask(memory, ctx.Arg(3));
      break;
    case SYS_select:
    case SYS_pselect6: {
      const uint64_t sets[3] = {ctx.Arg(1), ctx.Arg(2), ctx.Arg(3)};
      const bool is_select = ctx.thread.call.nr == SYS_select;
      ok = ReadFdSets(memory, ctx.Arg(0), sets, call.fds) && ReadTimeout(memory, ctx.Arg(4), is_select, call.timeout);
      if (!is_select && ctx.Arg(5) != 0) {
        if (auto mask_pointer = memory.Read<uint64_t>(ctx.Arg(5))) call.mask = ReadMask(memory, *mask_pointer);
      }
      break;
    }
    case SYS_epoll_wait:
    case SYS_epoll_pwait: {
      call.fds.push_back({static_cast<int>(ctx.Arg(0)), POLLIN});
      const auto ms = static_cast<int32_t>(ctx.Arg(3));
      if (ms >= 0) call.timeout = int64_t{ms} * 1'000'000;
      if (ctx.thread.call.nr == SYS_epoll_pwait) call.mask = ReadMask(memory, ctx.Arg(4));
      break;
    }
    case SYS_epoll_pwait2:
      call.fds.push_back({static_cast<int>(ctx.Arg(0)), POLLIN});
      ok = ReadTimeout(memory, ctx.Arg(3), false, call.timeout);
      call.mask = ReadMask(memory, ctx.Arg(4));
      break;
    default:
      return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return call;
}

Disposition PollEntry(SyscallContext& ctx) {
  auto call = DecodeCall(ctx);
  if (!call) return Disposition::Native();
  if (call->timeout == 0 && !ctx.deadline_override) return Disposition::YieldThenNative();
  std::optional<MonoNanos> deadline = ctx.deadline_override;
  if (!deadline && call->timeout) deadline = ctx.services.Time().Monotonic() + *call->timeout;
  // The call's own mask decides which signals end the wait; with no descriptor and no
  // timeout, only a signal can.
  if (call->fds.empty()) {
    if (call->mask || !deadline) return ctx.BlockUntil({SignalWait{call->mask, 0}, deadline});
    return ctx.BlockUntil({SleepWait{}, deadline});
  }
  const auto first = static_cast<uint64_t>(call->fds.front().fd);
  IoWait wait{std::move(call->fds)};
  wait.signal_mask = call->mask;
  bool ready = IoWaitReady(ctx.services.Fds(), ctx.thread.process->tgid, wait);
  if (!ready) {
    // Signalfds report the poller's pending signals, not the supervisor's: looked at here, and
    // while it waits by the SignalScan.
    const uint64_t watched = SignalfdSignals(ctx.thread.process->tgid, wait);
    ready = watched != 0 && PendingOf(ctx.thread.tid, watched) != 0;
  }
  return ctx.WaitOnFds(std::move(wait), ready, deadline, 0, first);
}

// The results of a poll that timed out, written by the supervisor: every revents cleared.
TimeoutAnswer PollNothingReady(SyscallContext& ctx) {
  std::vector<pollfd> fds(ctx.Arg(1));  // a count the entry read already (ReadPollFds)
  const RemoteMemory memory = ctx.Memory();
  if (!fds.empty() && !memory.Read(ctx.Arg(0), fds.data(), fds.size() * sizeof(pollfd))) return TimeoutAnswer::Complete(-EFAULT);
  for (pollfd& fd : fds) fd.revents = 0;
  if (!fds.empty() && !memory.Write(ctx.Arg(0), fds.data(), fds.size() * sizeof(pollfd))) return TimeoutAnswer::Complete(-EFAULT);
  return TimeoutAnswer::Complete(0);
}

// The timeout passed: the kernel runs the call with a zero timeout, so it fills in the results
// (no descriptor ready, the remaining time zero) as it would have. Where the timeout is an
// argument, the program's own seccomp filter judges the changed call; if it would refuse it,
// the supervisor writes what the kernel would have (epoll writes nothing when nothing is ready).
TimeoutAnswer PollTimedOut(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  const RemoteMemory memory = ctx.Memory();
  const timespec zero_ts{};
  const timeval zero_tv{};
  Registers changed = thread.regs;
  switch (thread.call.nr) {
    case SYS_poll:
      changed.SetArg(2, 0);
      if (!ctx.FiltersPermitChange(changed)) return PollNothingReady(ctx);
      thread.regs = changed;
      return TimeoutAnswer::NativeWithRegisters();
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
      changed.SetArg(3, 0);
      if (!ctx.FiltersPermitChange(changed)) return TimeoutAnswer::Complete(0);
      thread.regs = changed;
      return TimeoutAnswer::NativeWithRegisters();
    case SYS_ppoll:
      if (memory.Write(thread.call.args[2], zero_ts)) return TimeoutAnswer::Native();
      break;
    case SYS_pselect6:
      if (memory.Write(thread.call.args[4], zero_ts)) return TimeoutAnswer::Native();
      break;
    case SYS_select:
      if (memory.Write(thread.call.args[4], zero_tv)) return TimeoutAnswer::Native();
      break;
    case SYS_epoll_pwait2: {
      const uint64_t scratch = (thread.regs.Sp() - kScratchBelowStack) & ~uint64_t{15};
      changed.SetArg(3, scratch);
      if (!ctx.FiltersPermitChange(changed) || !memory.Write(scratch, zero_ts)) break;
      thread.regs = changed;
      return TimeoutAnswer::NativeWithRegisters();
    }
    default:
      break;
  }
  return TimeoutAnswer::Complete(0);
}

}  // namespace

FamilyHandler PollHandler() {
  return {.on_entry = PollEntry, .execute = RunWhenFdsReady, .on_timeout = PollTimedOut};
}

}  // namespace chess::supervisor
