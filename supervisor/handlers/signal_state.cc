// rt_sigaction(SIGSEGV) and rt_sigprocmask: the kernel runs them; the supervisor keeps SIGSEGV's
// action and blocked bit as the program sets them, because the forced SIGSEGV of an emulated
// rdtsc changes both before the supervisor sees the fault, and it puts them back from here
// (forced_signal.h, timestamp_counter.cc). Both are read at the call's entry, where their
// outcome is already known: the kernel fails them only for a bad size, an unknown `how` or an
// unreadable set, and the set may be the same memory as the old one the call writes.
#include <sys/syscall.h>

#include <csignal>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

constexpr uint64_t kSignalSetSize = 8;  // the only sigsetsize the kernel accepts on x86_64

Disposition SignalStateEntry(SyscallContext& ctx) {
  if (ctx.Arg(1) == 0 || ctx.Arg(3) != kSignalSetSize) return Disposition::Native();  // a query, or EINVAL
  const RemoteMemory memory = ctx.Memory();
  if (ctx.thread.call.nr == SYS_rt_sigaction) {  // the filter traps it only for SIGSEGV
    if (auto action = memory.Read<SignalAction>(ctx.Arg(1))) ctx.thread.process->segv_action = *action;
    return Disposition::Native();
  }
  const std::optional<uint64_t> set = memory.Read<uint64_t>(ctx.Arg(1));
  if (!set) return Disposition::Native();  // EFAULT
  const std::optional<bool> blocked =
      BlockedAfterMaskChange(ctx.thread.segv_blocked, static_cast<int>(ctx.Arg(0)), *set, SIGSEGV);
  if (blocked) ctx.thread.segv_blocked = *blocked;
  return Disposition::Native();
}

}  // namespace

FamilyHandler SignalStateHandler() { return {.on_entry = SignalStateEntry}; }

}  // namespace chess::supervisor
