// set_tid_address, set_robust_list: the kernel runs them; the addresses are remembered because the
// kernel's exit-time futex writes wake no emulated waiter, so the supervisor replays those wakes.
#include <sys/syscall.h>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

Disposition ThreadSetupEntry(SyscallContext& ctx) {
  if (ctx.thread.call.nr == SYS_set_tid_address) {
    ctx.thread.clear_child_tid = ctx.Arg(0);
  } else {
    ctx.thread.robust_list = ctx.Arg(0);
  }
  return Disposition::Native();
}

}  // namespace

FamilyHandler ThreadSetupHandler() { return {ThreadSetupEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
