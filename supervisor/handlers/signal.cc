// kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal: the kernel sends
// the signal; the supervisor notes who may now have one pending, because a thread parked in an
// emulated wait would otherwise never run to take it. A SIGCONT or SIGKILL changes a stopped
// or parked process at once; the call then waits, at its exit, until those changes are seen.
#include <sys/syscall.h>

#include <csignal>

#include <optional>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The target of a kill-like call as the program named it (a process, or 0 or less: a group or
// everyone), and the signal; nullopt for a pidfd.
struct SignalTarget {
  pid_t pid;
  bool thread;
  int signal;
};

std::optional<SignalTarget> TargetOf(const SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo:
      return SignalTarget{static_cast<pid_t>(ctx.Arg(0)), false, static_cast<int>(ctx.Arg(1))};
    case SYS_tkill:
      return SignalTarget{static_cast<pid_t>(ctx.Arg(0)), true, static_cast<int>(ctx.Arg(1))};
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
      return SignalTarget{static_cast<pid_t>(ctx.Arg(1)), true, static_cast<int>(ctx.Arg(2))};
    default:
      return std::nullopt;
  }
}

Disposition SignalEntry(SyscallContext& ctx) {
  const std::optional<SignalTarget> target = TargetOf(ctx);
  return Disposition::Point(search::OpKind::kSignal, static_cast<uint64_t>(target ? target->pid : 0), true, true);
}

bool ActsAtOnce(int signal) { return signal == SIGCONT || signal == SIGKILL; }

ExitAnswer SignalExit(SyscallContext& ctx) {
  const std::optional<SignalTarget> target = TargetOf(ctx);
  if (target && ctx.thread.regs.Return() == 0) {
    ctx.services.SettleSignalled(target->pid, target->thread, target->signal, *ctx.thread.process);
  }
  return ExitAnswer::Native();
}

ExecuteAnswer SignalExecute(SyscallContext& ctx) {
  const std::optional<SignalTarget> target = TargetOf(ctx);
  if (!target) {
    ctx.services.SignalSent(0, false, *ctx.thread.process);  // a pidfd: the target is not worth resolving
    return ExecuteAnswer::Native();
  }
  // 0, -1, -pgid: possibly everyone.
  ctx.services.SignalSent(target->thread || target->pid > 0 ? target->pid : 0, target->thread, *ctx.thread.process);
  const bool settle = ActsAtOnce(target->signal) &&
                      ctx.services.SignalActsAtOnce(target->pid, target->thread, target->signal, *ctx.thread.process);
  return settle ? ExecuteAnswer::NativeThenExit() : ExecuteAnswer::Native();
}

}  // namespace

FamilyHandler SignalHandler() { return {SignalEntry, SignalExecute, SignalExit}; }

}  // namespace chess::supervisor
