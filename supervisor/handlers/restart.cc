// restart_syscall: a timed wait that a signal interrupted without a handler (a stop and continue,
// say) goes on until the deadline it had, emulated again.
#include <sys/syscall.h>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

Disposition RestartEntry(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  if (!thread.restartable) return Disposition::Native();  // a call the kernel ran on its own
  const Thread::Restartable interrupted = *thread.restartable;
  thread.restartable.reset();
  using F = seccomp::SyscallFamily;
  switch (interrupted.call.family) {
    case F::kSleep:
      thread.call = interrupted.call;
      return ctx.BlockUntil({SleepWait{}, interrupted.deadline, interrupted.deadline_result});
    case F::kFutex:
      // A spurious wake-up, which every futex waiter must handle: it looks at its word again.
      return Disposition::Complete(0);
    case F::kPoll: {
      // The same call again, with the deadline it had — unless the program's own seccomp
      // filter (installed since by another thread) would refuse it: then the kernel's restart
      // goes on with the time that was left in real time.
      Registers changed = thread.regs;
      changed.SetSyscallNr(interrupted.call.nr);
      for (int i = 0; i < 6; ++i) changed.SetArg(i, interrupted.call.args[i]);
      if (!ctx.FiltersPermitChange(changed)) return Disposition::Native();
      thread.call = interrupted.call;
      thread.regs = changed;
      thread.parked.registers_dirty = true;
      SyscallContext poll{thread, ctx.services, interrupted.deadline};
      return PollHandler().on_entry(poll);
    }
    default:
      return Disposition::Native();
  }
}

}  // namespace

FamilyHandler RestartHandler() { return {.on_entry = RestartEntry}; }

}  // namespace chess::supervisor
