// Threads waiting on descriptors and kernel objects: which can go on now, and which wait on the
// outside world.
#include "supervisor/supervisor.h"

namespace chess::supervisor {

bool Supervisor::ReleaseReadyWaiters() {
  bool released = false;
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state != ThreadState::kBlocked || thread->process->dying) continue;
    bool ready = false;
    if (thread->io_wait) {
      ready = IoWaitReady(fd_probe_, thread->process->tgid, *thread->io_wait);
    } else if (thread->waits_for_object) {
      SyscallContext context{*thread, *this};
      const FamilyHandler handler = HandlerFor(thread->call.family);
      ready = handler.ready == nullptr || handler.ready(context);
    }
    if (!ready) continue;
    // Its operation runs again when it is picked, and looks again: another thread may take
    // the data or the lock first. A thread inside a transfer re-enters its call instead.
    thread->state = ThreadState::kReady;
    if (thread->at_syscall_exit) {
      thread->io_wait.reset();
    } else {
      thread->op_pending = true;
    }
    released = true;
  }
  return released;
}

bool Supervisor::WaitsOnOutside(const Thread& thread) const {
  if (thread.state != ThreadState::kBlocked) return false;
  if (thread.io_wait || thread.waits_for_object) return true;
  // Waiting only for a signal (pause, sigsuspend, a poll of nothing): one may come from anyone.
  return thread.signal_wait.has_value() && !thread.deadline;
}

bool Supervisor::AnyWaiterOnOutside() const {
  for (const auto& [id, thread] : threads_.Live()) {
    if (WaitsOnOutside(*thread)) return true;
  }
  return false;
}

}  // namespace chess::supervisor
