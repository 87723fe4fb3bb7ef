// Handing the tree over for inspection (replay --stop-at): every thread is left stopped where
// it was, no longer traced, for gdb to attach. A thread at a syscall the supervisor had not let
// run yet is put back on its syscall instruction, so a debugger sees it just before the call.
// This is for looking only: untraced, the tree's trapped syscalls fail with ENOSYS (seccomp's
// RET_TRACE without a tracer), so it cannot go on as the recording did. The preload shim is
// told to stop announcing: a hypercall trap without a tracer would be a SIGTRAP.
#include <signal.h>

#include <ctime>
#include <set>

#include "supervisor/supervisor.h"
#include "supervisor/report/thread_report.h"

namespace chess::supervisor {

void Supervisor::HandOver(const std::string& where) {
  Handover handover;
  handover.where = where;
  handover.threads = BuildThreadReports(threads_, futexes_);
  std::set<pid_t> processes;
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state != ThreadState::kDead && thread->state != ThreadState::kExiting) {
      processes.insert(thread->process->tgid);
    }
  }
  // A SIGSTOP for each process, pending while its threads are still held: let go, they stop
  // before running a single instruction (PTRACE_DETACH's own signal would be dropped at a
  // seccomp stop, which is no signal-delivery stop).
  for (pid_t process : processes) kill(process, SIGSTOP);
  std::set<uint64_t> quieted;  // address spaces whose preload shim was told to stop announcing
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kDead || thread->state == ThreadState::kExiting) continue;
    // Untraced, a hypercall trap would be a SIGTRAP: the shim goes quiet instead.
    if (thread->process->shim_control != 0 && quieted.insert(thread->process->address_space).second) {
      SetShimControl(*thread, 0);
    }
    if (thread->parked.AtEntry() && thread->call.trap == TrappedCall::Trap::kHypercall) {
      // Stopped at a hypercall trap: answered, and past its marker (thread->regs say so).
      Registers regs = thread->regs;
      regs.SetSyscallResult(0);
      ptrace::SetRegisters(thread->tid, regs);
    } else if (thread->parked.AtEntry() && !thread->in_vfork) {
      Registers regs = thread->regs;
      regs.UndoSyscallEntry(thread->call.nr);
      ptrace::SetRegisters(thread->tid, regs);
    }
    ptrace::Detach(thread->tid);
  }
  running_ = nullptr;
  handover.processes.assign(processes.begin(), processes.end());
  // Until every process shows stopped (a thread let go takes its SIGSTOP as it returns to user
  // space): a debugger attached before would see it running. Bounded: a second at most.
  for (int look = 0; look < 1000; ++look) {
    bool all_stopped = true;
    for (pid_t process : processes) all_stopped = all_stopped && KernelState(process) != 'R';
    if (all_stopped) break;
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  if (options_.on_handover) options_.on_handover(handover);
  Finish(search::Outcome::kError, "stopped " + where + " and handed over for inspection");
  result_->handed_over = true;
  result_->threads = std::move(handover.threads);
}

}  // namespace chess::supervisor
