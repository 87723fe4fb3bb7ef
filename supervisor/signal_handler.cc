// kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal: the kernel sends
// the signal; the supervisor notes who may now have one pending, because a thread parked in an
// emulated wait would otherwise never run to take it.
#include <sys/syscall.h>

#include "supervisor/handler.h"

namespace chess::supervisor {
namespace {

Disposition SignalEntry(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  const auto target = nr == SYS_pidfd_send_signal ? 0 : static_cast<pid_t>(
      nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo ? ctx.Arg(1) : ctx.Arg(0));
  return Disposition::Point(search::OpKind::kSignal, static_cast<uint64_t>(target), true, true);
}

Disposition SignalExecute(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  switch (nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo: {
      const auto pid = static_cast<pid_t>(ctx.Arg(0));
      ctx.services.SignalSent(pid > 0 ? pid : 0, false);  // 0, -1, -pgid: possibly everyone
      break;
    }
    case SYS_tkill:
      ctx.services.SignalSent(static_cast<pid_t>(ctx.Arg(0)), true);
      break;
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
      ctx.services.SignalSent(static_cast<pid_t>(ctx.Arg(1)), true);
      break;
    default:
      ctx.services.SignalSent(0, false);  // a pidfd: the target is not worth resolving
      break;
  }
  return Disposition::Native();
}

}  // namespace

FamilyHandler SignalHandler() { return {SignalEntry, SignalExecute}; }

}  // namespace chess::supervisor
