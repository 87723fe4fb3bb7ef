// The program's own tracing of its threads, the supervisor's side (the requests are
// handlers/ptrace.cc). A stop the program's tracer should see — a signal about to be delivered,
// an event it asked for — parks the tracee in an emulated ptrace-stop: blocked until its tracer
// lets it go, and reported to the tracer's wait4/waitid, whose waiting threads look again. The
// tracee stays in the supervisor's real ptrace-stop all along, so its registers and siginfo,
// read once here, are what the tracer's requests read and change.
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>

#include "supervisor/supervisor.h"

namespace chess::supervisor {

bool Supervisor::StopForTracer(Thread& thread, EmulatedStop stop) {
  if (!thread.parked.AtStop() && !ptrace::GetRegisters(thread.tid, thread.regs)) return false;  // killed
  if (stop.kind == EmulatedStop::Kind::kSignal) {
    if (!ptrace::GetSignalInfo(thread.tid, stop.info)) return false;
  } else {
    stop.message = ptrace::EventMessage(thread.tid).value_or(0);
    stop.info.si_signo = SIGTRAP;
    stop.info.si_code = SIGTRAP | (stop.event << 8);
  }
  execution_.prefix_forkable = false;
  thread.traced->Enter(stop);
  thread.wait = Wait{TraceStopWait{}};
  thread.state = ThreadState::kBlocked;
  if (running_ == &thread) {
    thread.point = {thread.id, search::OpKind::kSyscall};
    Park(thread, search::StopReason::kBlocked);
  }
  last_progress_ = clocks_.WallNow();
  ReleaseTracerWaiters(thread.traced->TracerProcess());
  return true;
}

void Supervisor::ReleaseTracerWaiters(pid_t tracer_process) {
  // Their call looks again when they are picked (WaitForChildren reports the stop): the
  // kernel, which does not know the tracer, would not.
  for (const auto& [id, waiter] : threads_.Live()) {
    if (waiter->process->tgid != tracer_process || waiter->state != ThreadState::kBlocked || !waiter->wait ||
        !waiter->wait->Is<ChildWait>() || !waiter->parked.AtEntry()) {
      continue;
    }
    ClearWait(*waiter);
    waiter->state = ThreadState::kReady;
    waiter->parked.at = ParkedCall::At::kOperationPending;
  }
}

void Supervisor::TracerGone(const Thread& tracer) {
  // The kernel's exit_ptrace: each tracee of the dead tracer is killed (PTRACE_O_EXITKILL) or
  // detached, leaving its stop with the signal it stopped for still to be delivered.
  const bool whole_process = tracer.tid == tracer.process->tgid;
  std::vector<Process*> killed;
  for (const auto& [id, tracee] : threads_.Live()) {
    if (!tracee->traced || !tracee->Alive()) continue;
    if (tracee->traced->Tracer() != tracer.tid && !(whole_process && tracee->traced->TracerProcess() == tracer.tid)) {
      continue;
    }
    if (tracee->traced->Options() & ptrace_abi::kOptionExitKill) {
      syscall(SYS_tgkill, tracee->process->tgid, tracee->tid, SIGKILL);
      killed.push_back(tracee->process);
      continue;
    }
    if (const EmulatedStop* stop = tracee->traced->Stop()) {
      LeaveTraceStop(*tracee, stop->kind == EmulatedStop::Kind::kSignal ? stop->signal : 0);
    }
    tracee->traced.reset();
  }
  for (Process* process : killed) CollectDyingProcess(*process);
}

}  // namespace chess::supervisor
