// clone, clone3, fork, vfork: a new thread or process is a scheduling point. The kernel creates
// it; the handler remembers the flags and the CLONE_CHILD_CLEARTID address the event loop needs
// when PTRACE_EVENT_CLONE/FORK/VFORK arrives, and keeps every child traced.
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

using search::OpKind;

// The prefix of struct clone_args every kernel since 5.3 accepts.
struct CloneArgsPrefix {
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
};

Disposition CloneEntry(SyscallContext&) { return Disposition::Point(OpKind::kThreadCreate, 0, true); }

ExecuteAnswer CloneExecute(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  thread.clone_child_tid = 0;
  switch (thread.call.nr) {
    case SYS_clone:
      thread.clone_flags = ctx.Arg(0);
      // x86_64 argument order: flags, stack, parent_tid, child_tid, tls.
      if (thread.clone_flags & CLONE_CHILD_CLEARTID) thread.clone_child_tid = ctx.Arg(3);
      break;
    case SYS_clone3: {
      if (ctx.Arg(1) < sizeof(CloneArgsPrefix)) return ExecuteAnswer::Native();  // kernel: EINVAL
      auto args = ctx.Memory().Read<CloneArgsPrefix>(ctx.Arg(0));
      if (!args) return ExecuteAnswer::Native();  // the kernel answers EFAULT itself
      thread.clone_flags = args->flags;
      if (args->flags & CLONE_CHILD_CLEARTID) thread.clone_child_tid = args->child_tid;
      break;
    }
    case SYS_fork:
      thread.clone_flags = SIGCHLD;
      break;
    case SYS_vfork:
      thread.clone_flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
      break;
    default:
      break;
  }
  if ((thread.clone_flags & CLONE_THREAD) == 0 && ctx.services.ProcessesAllowed() == 0) {
    ctx.services.Stop(search::Outcome::kError,
                      "the program tried to have more than " + std::to_string(ctx.services.MaxProcesses()) +
                          " processes at once (a fork bomb?) and was stopped; raise the limit with "
                          "--max-processes N");
    return ExecuteAnswer::Complete(-EAGAIN);
  }
  if (thread.clone_flags & CLONE_UNTRACED) {
    // The kernel would not attach the child: it would run unserialized. Clear the flag.
    thread.clone_flags &= ~static_cast<uint64_t>(CLONE_UNTRACED);
    if (thread.call.nr == SYS_clone) {
      Registers changed = thread.regs;
      changed.SetArg(0, thread.clone_flags);
      if (!ctx.FiltersPermitChange(changed)) {
        ctx.services.Stop(search::Outcome::kError,
                          "the program's own seccomp filter refuses its clone without CLONE_UNTRACED, which chess-trace "
                          "must clear to follow the child");
        return ExecuteAnswer::Complete(-EPERM);
      }
      thread.regs = changed;
      return ExecuteAnswer::NativeWithRegisters();
    }
    if (!ctx.Memory().Write(ctx.Arg(0), thread.clone_flags)) return ExecuteAnswer::Complete(-EFAULT);
  }
  return ExecuteAnswer::Native();
}

}  // namespace

FamilyHandler CloneHandler() { return {CloneEntry, CloneExecute}; }

}  // namespace chess::supervisor
