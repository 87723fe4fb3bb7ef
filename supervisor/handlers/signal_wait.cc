// pause, rt_sigsuspend, rt_sigtimedwait: the thread waits for a signal. It is disabled until
// one that ends its wait is pending (see SignalMasks::Waking); then the kernel runs the call,
// which returns at once.
#include <sys/syscall.h>

#include <cerrno>

#include "supervisor/handlers/pending_signals.h"
#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// sigtimedwait takes a signal without a delivery stop: its result is looked at on the way out.
SignalAnswer SignalWaitInterrupted(SyscallContext& ctx, bool) {
  if (ctx.thread.call.nr == SYS_rt_sigtimedwait && ctx.Arg(1) != 0 && !ctx.thread.process->posix_timers.empty()) {
    return SignalAnswer::NativeThenExit();
  }
  return SignalAnswer::Native();
}

Disposition SignalWaitEntry(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  const RemoteMemory memory = ctx.Memory();
  SignalWait wait;
  std::optional<MonoNanos> deadline;
  switch (thread.call.nr) {
    case SYS_rt_sigsuspend: {
      auto mask = memory.Read<uint64_t>(ctx.Arg(0));
      if (!mask || ctx.Arg(1) != sizeof(uint64_t)) return Disposition::Native();  // EFAULT, EINVAL
      wait.mask = *mask;
      break;
    }
    case SYS_rt_sigtimedwait: {
      auto set = memory.Read<uint64_t>(ctx.Arg(0));
      if (!set || ctx.Arg(3) != sizeof(uint64_t)) return Disposition::Native();
      wait.awaited = *set;
      if (ctx.Arg(2) != 0) {
        int error = 0;
        auto timeout = ReadTimespec(memory, ctx.Arg(2), &error);
        if (!timeout) return Disposition::Native();
        if (*timeout == 0) return Disposition::Native();  // a poll of the pending set
        deadline = ctx.services.Time().Monotonic() + *timeout;
      }
      break;
    }
    default:  // pause
      break;
  }
  // Already pending: nothing to wait for.
  if (auto masks = ReadSignalMasks(thread.tid)) {
    if (masks->WakingFromThread(&wait) != 0 || masks->WakingFromProcess(&wait) != 0) {
      return SignalWaitInterrupted(ctx, false);
    }
  }
  return ctx.BlockUntil({wait, deadline, -EAGAIN});
}

ExitAnswer SignalWaitExit(SyscallContext& ctx) {
  if (ctx.thread.regs.Return() > 0) TimerSignalTakenByWait(ctx, ctx.Arg(1));
  return ExitAnswer::Complete(ctx.thread.regs.Return());
}

}  // namespace

FamilyHandler SignalWaitHandler() {
  return {.on_entry = SignalWaitEntry, .on_exit = SignalWaitExit, .on_signal = SignalWaitInterrupted};
}

}  // namespace chess::supervisor
