// Job control. A stop signal's default action stops every thread of the process until a
// SIGCONT; the parent's wait4(WUNTRACED) sees the stop, and WCONTINUED the continue. The kernel
// does all of it — the supervisor only keeps a stopped thread stopped (PTRACE_LISTEN instead of
// resuming it), makes the process's parked threads take part in the stop, and lets the parent's
// wait collect the change.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <vector>

#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

bool AllStopped(const ThreadTable& threads, const Process& process) {
  for (const auto& [id, thread] : threads.Live()) {
    if (thread->process == &process && thread->state != ThreadState::kStopped) return false;
  }
  return true;
}

}  // namespace

bool Supervisor::SignalActsAtOnce(pid_t pid, bool thread, int signal, const Process& sender) {
  // Asked at the call's deferred operation, before its thread runs again: `pid` is looked up as
  // the sender names it, not as whoever ran last would.
  for (Process* process : threads_.SignalTargets(pid, thread, &sender)) {
    if (running_ != nullptr && process == running_->process) continue;  // its own: it dies, or goes on
    for (const auto& [id, t] : threads_.Live()) {
      if (t->process != process) continue;
      if (signal == SIGKILL || t->state == ThreadState::kStopped) return true;
    }
  }
  return false;
}

void Supervisor::SettleSignalled(pid_t pid, bool thread, int signal, const Process& sender) {
  for (Process* process : threads_.SignalTargets(pid, thread, &sender)) {
    if (running_ != nullptr && process == running_->process) continue;
    if (signal == SIGKILL) {
      CollectDyingProcess(*process);
      continue;
    }
    // SIGCONT: each thread in a group-stop reports leaving it (OnContinued).
    std::vector<pid_t> stopped;
    for (const auto& [id, t] : threads_.Live()) {
      if (t->process == process && t->state == ThreadState::kStopped) stopped.push_back(t->tid);
    }
    for (pid_t tid : stopped) AwaitThread(tid, [](const Thread& t) { return t.state != ThreadState::kStopped; });
  }
}

void Supervisor::OnGroupStop(Thread& thread) {
  execution_.prefix_forkable = false;
  ptrace::Listen(thread.tid);
  if (running_ == &thread) {
    running_ = nullptr;
    last_ = &thread;
    execution_.last_stop = search::StopReason::kBlocked;
  }
  thread.state = ThreadState::kStopped;
  thread.parked.at = ParkedCall::At::kNone;
  last_progress_ = clocks_.WallNow();
  Process& process = *thread.process;
  // Its siblings parked in emulated waits take part by running their real call, which the
  // pending stop interrupts at once; the kernel restarts it after the SIGCONT.
  for (const auto& [id, sibling] : threads_.Live()) {
    if (sibling->process == &process && sibling != &thread && sibling->state == ThreadState::kBlocked &&
        sibling->parked.AtEntry() && !sibling->in_vfork) {
      ReleaseToKernel(*sibling);
    }
  }
  if (AllStopped(threads_, process)) {
    process.job_change = Process::JobChange::kStopped;
    ReleaseParentWaiters(process);
  }
}

void Supervisor::OnContinued(Thread& thread) {
  // Back in a ptrace-stop: resuming it goes on where the stop caught it.
  thread.state = ThreadState::kReady;
  last_progress_ = clocks_.WallNow();
  Process& process = *thread.process;
  if (process.job_change != Process::JobChange::kContinued) {
    process.job_change = Process::JobChange::kContinued;
    ReleaseParentWaiters(process);
  }
}

void Supervisor::ReleaseParentWaiters(Process& child) {
  for (const auto& [id, waiter] : threads_.Live()) {
    if (!waiter->wait || !waiter->wait->Is<ChildWait>() || waiter->process->tgid != child.parent ||
        waiter->state != ThreadState::kBlocked) {
      continue;
    }
    const bool is_wait4 = waiter->call.nr == SYS_wait4;
    const Changes wanted = WantedChanges(is_wait4, is_wait4 ? waiter->call.args[2] : waiter->call.args[3]);
    const bool exited = child.exit_code || child.exit_signal;
    if (!(exited && wanted.exit) && !wanted.Collects(child.job_change)) continue;
    ReleaseToKernel(*waiter);
    if (!exited) child.job_change = Process::JobChange::kNone;  // the kernel reports it now
  }
}

}  // namespace chess::supervisor
