// exit, exit_group: the end of a thread (releasing its CLONE_CHILD_CLEARTID word) or of its whole
// process is a visible operation that releases what the thread held.
#include <sys/syscall.h>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

using search::OpKind;

Disposition ExitEntry(SyscallContext& ctx) {
  if (ctx.thread.call.nr == SYS_exit_group) return Disposition::Point(OpKind::kProcessExit, 0, true, true);
  return Disposition::Point(OpKind::kThreadExit, ctx.thread.clear_child_tid, true, true);
}

ExecuteAnswer ExitExecute(SyscallContext& ctx) {
  ctx.thread.called_exit = true;
  if (ctx.thread.call.nr == SYS_exit_group) ctx.thread.process->dying = true;
  return ExecuteAnswer::Native();
}

}  // namespace

FamilyHandler ExitHandler() { return {ExitEntry, ExitExecute}; }

}  // namespace chess::supervisor
