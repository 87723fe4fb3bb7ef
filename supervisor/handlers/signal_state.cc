// rt_sigaction, rt_sigprocmask, rt_sigreturn: the kernel runs them; the supervisor keeps the
// signals' actions and SIGSEGV's blocked bit as the program sets them, because the forced
// SIGSEGV of an emulated rdtsc changes SIGSEGV's before the supervisor sees the fault, and it
// puts them back from here (forced_signal.h, timestamp_counter.cc). The other signals' actions
// say which mask their handlers run under (the supervisor applies it at their delivery), and
// rt_sigreturn gives back the mask saved in the signal frame. rt_sigaction and rt_sigprocmask
// are read at the entry, where their outcome is already known — the kernel fails them only for a
// bad size or signal, an unknown `how` or unreadable memory — and their new value may be the
// same memory as the old one the call writes.
#include <sys/syscall.h>
#include <ucontext.h>

#include <csignal>
#include <cstddef>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

constexpr uint64_t kSignalSetSize = 8;  // the only sigsetsize the kernel accepts on x86_64
// At rt_sigreturn the stack pointer is at the frame's ucontext (the handler's return popped the
// restorer's address); its uc_sigmask is the mask the kernel restores.
constexpr uint64_t kFrameMaskOffset = offsetof(ucontext_t, uc_sigmask);

Disposition ActionEntry(SyscallContext& ctx) {
  const int signal = static_cast<int>(ctx.Arg(0));
  if (ctx.Arg(1) == 0 || ctx.Arg(3) != kSignalSetSize) return Disposition::Native();  // a query, or EINVAL
  if (signal < 1 || signal > SignalActions::kSignals || signal == SIGKILL || signal == SIGSTOP) {
    return Disposition::Native();  // EINVAL
  }
  if (auto action = ctx.Memory().Read<SignalAction>(ctx.Arg(1))) ctx.thread.forced_signal.ActionSet(signal, *action);
  return Disposition::Native();
}

Disposition MaskEntry(SyscallContext& ctx) {
  if (ctx.Arg(1) == 0 || ctx.Arg(3) != kSignalSetSize) return Disposition::Native();  // a query, or EINVAL
  const std::optional<uint64_t> set = ctx.Memory().Read<uint64_t>(ctx.Arg(1));
  if (!set) return Disposition::Native();  // EFAULT
  ctx.thread.forced_signal.MaskChanged(static_cast<int>(ctx.Arg(0)), *set);
  return Disposition::Native();
}

Disposition ReturnEntry(SyscallContext& ctx) {
  // A frame the kernel cannot read kills the thread with SIGSEGV: nothing to keep then.
  if (auto mask = ctx.Memory().Read<uint64_t>(ctx.thread.regs.Sp() + kFrameMaskOffset)) {
    ctx.thread.forced_signal.MaskIs(*mask);
  }
  return Disposition::Native();
}

Disposition SignalStateEntry(SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_rt_sigaction:
      return ActionEntry(ctx);
    case SYS_rt_sigprocmask:
      return MaskEntry(ctx);
    default:
      return ReturnEntry(ctx);
  }
}

}  // namespace

FamilyHandler SignalStateHandler() { return {.on_entry = SignalStateEntry}; }

}  // namespace chess::supervisor
