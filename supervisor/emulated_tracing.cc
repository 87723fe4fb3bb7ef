// The program's own tracing of its threads, the supervisor's side (the requests are
// handlers/ptrace.cc). A stop the program's tracer should see — a signal about to be delivered,
// an event it asked for — parks the tracee in an emulated ptrace-stop: blocked until its tracer
// lets it go, and reported to the tracer's wait4/waitid, whose waiting threads look again. The
// tracee stays in the supervisor's real ptrace-stop all along, so its registers and siginfo,
// read once here, are what the tracer's requests read and change.
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/sched.h>

#include <csignal>

#include "supervisor/handlers/handler.h"
#include "supervisor/handlers/pending_signals.h"
#include "supervisor/invariant.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {

bool Supervisor::StopForTracer(Thread& thread, EmulatedStop stop) {
  const bool registers_read = thread.parked.AtStop() || stop.kind == EmulatedStop::Kind::kSyscall;
  if (!registers_read && !ptrace::GetRegisters(thread.tid, thread.regs)) return false;  // killed
  if (stop.kind == EmulatedStop::Kind::kSignal) {
    if (!ptrace::GetSignalInfo(thread.tid, stop.info)) return false;
    if (stop.signal == SIGSTOP && thread.traced->TakeAttachStop()) {
      // The supervisor sent it with tgkill; the kernel's own attach sends it as SI_KERNEL.
      stop.info.si_code = SI_KERNEL;
      stop.info.si_pid = 0;
      stop.info.si_uid = 0;
    }
  } else if (stop.info.si_signo == 0) {
    stop.info.si_signo = SIGTRAP;
    stop.info.si_code = SIGTRAP | (stop.event << 8);
  }
  execution_.prefix_forkable = false;
  thread.traced->Enter(stop);
  NotifyTracer(thread, stop);
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

void Supervisor::NotifyTracer(const Thread& tracee, const EmulatedStop& stop) {
  Process* tracer = threads_.FindProcess(tracee.traced->TracerProcess());
  if (tracer == nullptr) return;
  // Only a handler sees it (an ignored or default SIGCHLD changes nothing), and a SIGCHLD
  // already pending absorbs it. SA_NOCLDSTOP, which would suppress it, is not known here.
  const uint64_t sigchld = 1ull << (SIGCHLD - 1);
  const std::optional<SignalMasks> masks = ReadSignalMasks(tracer->tgid);
  if (!masks || (masks->caught & sigchld) == 0 || ((masks->process_pending | masks->thread_pending) & sigchld) != 0) {
    return;
  }
  // Queued from outside the tracer, the kernel takes only a negative si_code: SI_QUEUE now,
  // the kernel's code when taken (ShowTracerNotice), carried meanwhile in si_utime, and the
  // pid in si_stime (the kernel clears si_pid from outside the program's pid namespace). A group-stop
  // and an interrupt's stop are CLD_STOPPED with the group's stopping signal, or 0 when there
  // is none; the other stops CLD_TRAPPED with their signal (measured).
  const bool stopped = stop.kind == EmulatedStop::Kind::kGroupStop || stop.IsEventStop();
  siginfo_t info{};
  info.si_signo = SIGCHLD;
  info.si_code = SI_QUEUE;
  info.si_pid = tracee.program_tid;
  info.si_uid = getuid();
  info.si_status = stopped ? (stop.signal == SIGTRAP ? 0 : stop.signal) : stop.signal & 0x7f;
  info.si_utime = stopped ? CLD_STOPPED : CLD_TRAPPED;
  info.si_stime = tracee.program_tid;
  if (syscall(SYS_rt_sigqueueinfo, tracer->tgid, SIGCHLD, &info) != 0) return;
  ++tracer->tracee_notices;
  signal_scan_.MayHaveSignal(tracer->tgid);
}

void Supervisor::ShowTracerNotice(Thread& thread) {
  if (thread.process->tracee_notices == 0) return;
  siginfo_t info{};
  if (!ptrace::GetSignalInfo(thread.tid, info) || info.si_code != SI_QUEUE ||
      (info.si_utime != CLD_STOPPED && info.si_utime != CLD_TRAPPED)) {
    return;
  }
  --thread.process->tracee_notices;
  info.si_code = static_cast<int>(info.si_utime);
  info.si_pid = static_cast<pid_t>(info.si_stime);
  info.si_utime = 0;
  info.si_stime = 0;
  ptrace::SetSignalInfo(thread.tid, info);
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

void Supervisor::ResumeAsTracerAsked(Thread& thread, int signal) {
  switch (thread.traced ? thread.traced->Resuming() : EmulatedTracee::Resumption::kContinue) {
    case EmulatedTracee::Resumption::kContinue:
      ptrace::Resume(thread.tid, signal);
      break;
    case EmulatedTracee::Resumption::kSyscall:
      ptrace::ResumeToNextSyscall(thread.tid, signal);
      break;
    case EmulatedTracee::Resumption::kSingleStep:
      ptrace::SingleStep(thread.tid, signal);
      break;
    case EmulatedTracee::Resumption::kSysemu:
    case EmulatedTracee::Resumption::kSysemuSingleStep:
      // The kernel stops it at the syscall's entry before seccomp's filter, and skips the call:
      // the supervisor sees no call to take up, only the stop (OnTracedSyscallStop).
      ptrace::Sysemu(thread.tid, signal, thread.traced->Resuming() == EmulatedTracee::Resumption::kSysemuSingleStep);
      break;
  }
}

bool Supervisor::TraceExec(Thread& thread, pid_t former_program_tid) {
  if (thread.traced->Wants(ptrace_abi::kEventExec)) {
    return StopForTracer(thread, {.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = ptrace_abi::kEventExec,
                                  .message = static_cast<uint64_t>(former_program_tid)});
  }
  // Without the option, a tracee not seized gets a SIGTRAP after the exec (the kernel's legacy
  // exec stop), which stops it for its tracer like any signal.
  if (thread.traced->How() != EmulatedTracee::Origin::kSeize) {
    syscall(SYS_tgkill, thread.process->tgid, thread.tid, SIGTRAP);
  }
  return false;
}

bool Supervisor::TraceCreation(Thread& parent, Thread& child, int event, uint64_t flags) {
  // Which option asks for it: a clone with CLONE_VFORK is a vfork, one with a SIGCHLD exit
  // signal and no CLONE_THREAD a fork (the kernel's order of checks).
  int wanted = event;
  if (event == PTRACE_EVENT_CLONE && (flags & CLONE_VFORK)) {
    wanted = ptrace_abi::kEventVfork;
  } else if (event == PTRACE_EVENT_CLONE && (flags & CSIGNAL) == SIGCHLD) {
    wanted = ptrace_abi::kEventFork;
  }
  if (!parent.traced->Wants(wanted)) return false;
  // The child is traced by the same tracer from its first instruction, and its first stop is
  // the tracer's: a SIGSTOP, or PTRACE_EVENT_STOP for a seized tracer.
  child.traced.emplace(parent.traced->Tracer(), parent.traced->TracerProcess(), parent.traced->How(),
                       parent.traced->Options());
  EmulatedStop first;
  if (parent.traced->How() == EmulatedTracee::Origin::kSeize) {
    first = {.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = ptrace_abi::kEventStop};
  } else {
    first = {.signal = SIGSTOP};
    first.info.si_signo = SIGSTOP;
    first.info.si_code = SI_USER;
  }
  if (ptrace::GetRegisters(child.tid, child.regs)) {
    child.traced->Enter(first);
    child.wait = Wait{TraceStopWait{}};
    child.state = ThreadState::kBlocked;
  }
  // A vfork parent stops here; let go, it sleeps in the kernel until the child lets go of its
  // memory (scheduling.cc's Dispatch), and then comes PTRACE_EVENT_VFORK_DONE.
  return StopForTracer(parent, {.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = wanted,
                                .message = static_cast<uint64_t>(child.program_tid)});
}

long Supervisor::TraceeRequest(Thread& tracee, int64_t request, uint64_t addr, void* data) {
  // The kernel must see the registers the tracer may have changed, and the supervisor's copy
  // must hold what the kernel changed.
  if (tracee.parked.registers_dirty && ptrace::SetRegisters(tracee.tid, tracee.regs)) {
    tracee.parked.registers_dirty = false;
  }
  const long result = ptrace::ProgramRequest(static_cast<long>(request), tracee.tid, addr, data);
  if (!tracee.parked.registers_dirty) ptrace::GetRegisters(tracee.tid, tracee.regs);
  return result;
}

void Supervisor::OnTracedSyscallStop(Thread& thread) {
  CHESS_CHECK(&thread == running_, "a syscall stop of a thread that was not running");
  if (!ptrace::GetRegisters(thread.tid, thread.regs)) return;  // killed meanwhile: death follows
  const bool entry = ptrace::AtSyscallEntry(thread.tid).value_or(false);
  thread.parked.at = ParkedCall::At::kNone;  // between the kernel's syscall stops, in no trapped call
  const std::optional<int64_t> emulated = thread.traced->TakeEmulatedCall();
  if (!entry && emulated && thread.regs.raw().orig_rax == static_cast<uint64_t>(-1)) {
    // The supervisor answered the call and the kernel skipped it: the tracer sees the call it
    // made, as the kernel shows one it ran.
    thread.regs.raw().orig_rax = static_cast<uint64_t>(*emulated);
    thread.parked.registers_dirty = true;
  }
  StopForTracer(thread, {.kind = EmulatedStop::Kind::kSyscall, .signal = thread.traced->SyscallStopSignal()});
}

void Supervisor::InterruptTracee(Thread& tracee) {
  EmulatedTracee& traced = *tracee.traced;
  if (traced.Stopped()) {
    traced.AskInterrupt();  // measured: it stops again as soon as it is let go
    return;
  }
  if (traced.Listening() && tracee.state != ThreadState::kStopped) {
    // Listening in a stop of the supervisor's making: it stops again at once.
    traced.Enter(traced.InterruptStop());
    ReleaseTracerWaiters(traced.TracerProcess());
    return;
  }
  switch (tracee.state) {
    case ThreadState::kReady:
      // Parked at one of the supervisor's stops, its turn not come: the interrupt catches it
      // there, before whatever it does next.
      StopForTracer(tracee, traced.InterruptStop());
      return;
    case ThreadState::kBlocked:
      if (!tracee.in_vfork && tracee.wait && !tracee.wait->Is<KernelSleep>() && tracee.parked.AtStop()) {
        // In an emulated wait: the kernel would interrupt the call and make it again when the
        // tracer lets the tracee go (ERESTARTSYS), and so it looks again then: its deferred
        // operation runs again, or its handler when it has none (a sleep counts from then).
        ClearWait(tracee);
        if (tracee.parked.AtEntry()) {
          const bool deferred = HandlerFor(tracee.call.family).execute != NoDeferredOperation;
          tracee.parked.at = deferred ? ParkedCall::At::kOperationPending : ParkedCall::At::kEntryPutOff;
        }
        StopForTracer(tracee, traced.InterruptStop());
        return;
      }
      break;
    case ThreadState::kExiting:
    case ThreadState::kDead:
      return;
    default:
      break;
  }
  // Asleep in the kernel or in a job-control stop: the kernel's own interrupt traps it, and its
  // trap is the tracer's (TraceInterruptTrap), with the signal the kernel chose.
  traced.AskInterrupt();
  ptrace::Interrupt(tracee.tid);
}

bool Supervisor::ListenTracee(Thread& tracee) {
  EmulatedTracee& traced = *tracee.traced;
  const bool in_kernel_trap = traced.Stop() != nullptr && traced.Stop()->kernel_event_stop;
  if (!traced.Listen()) return false;
  // A stop of the supervisor's making stays one: an interrupt ends it (a SIGCONT does not).
  if (!in_kernel_trap) return true;
  // In the kernel's own trap the tracee listens there: the kernel wakes it for the SIGCONT
  // that ends its process's stop, or for an interrupt (TraceInterruptTrap).
  if (tracee.parked.registers_dirty && ptrace::SetRegisters(tracee.tid, tracee.regs)) {
    tracee.parked.registers_dirty = false;
  }
  tracee.wait.reset();
  tracee.state = ThreadState::kStopped;
  ptrace::Listen(tracee.tid);
  return true;
}

bool Supervisor::TraceInterruptTrap(Thread& thread) {
  EmulatedTracee& traced = *thread.traced;
  if (traced.Stopped()) return false;
  const bool listened = traced.Listening() && thread.state == ThreadState::kStopped;
  if (!traced.TakeInterrupt() && !listened) return false;
  // The kernel's trap says whether its process is still stopped: SIGTRAP once a SIGCONT came.
  siginfo_t info{};
  if (!ptrace::GetSignalInfo(thread.tid, info)) return true;  // killed meanwhile: death follows
  if (thread.state == ThreadState::kStopped && info.si_signo == SIGTRAP) {
    traced.JobContinued();
    OnContinued(thread);
  }
  if (thread.wait) ClearWait(thread);  // asleep in the kernel: the call is made again when let go
  thread.parked.at = ParkedCall::At::kNone;
  if (!traced.Seized()) {
    // Attached to a job-stopped tracee: the kernel shows the group-stop it is in (measured).
    StopForTracer(thread, {.kind = EmulatedStop::Kind::kGroupStop, .signal = info.si_signo, .kernel_event_stop = true});
    return true;
  }
  StopForTracer(thread, {.kind = EmulatedStop::Kind::kEvent, .signal = info.si_signo, .event = ptrace_abi::kEventStop,
                         .info = info, .kernel_event_stop = true});
  return true;
}

void Supervisor::TraceVforkDone(Thread& parent) {
  if (!parent.Alive() || !parent.traced->Wants(ptrace_abi::kEventVforkDone)) return;
  // The kernel's message is the child's pid, as the tracer sees it.
  const std::optional<unsigned long> child_tid = ptrace::EventMessage(parent.tid);
  const Thread* child = child_tid ? threads_.Find(static_cast<pid_t>(*child_tid)) : nullptr;
  StopForTracer(parent, {.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = ptrace_abi::kEventVforkDone,
                         .message = child != nullptr ? static_cast<uint64_t>(child->program_tid) : 0});
}

bool Supervisor::TraceGroupStop(Thread& thread, int signal) {
  EmulatedTracee& traced = *thread.traced;
  // The kernel's group-stop of a traced thread is its tracer's stop; a seized tracee's shows
  // PTRACE_EVENT_STOP and has a siginfo, another's has neither (measured).
  EmulatedStop stop{.kind = EmulatedStop::Kind::kGroupStop, .signal = signal, .kernel_event_stop = true};
  if (traced.Seized()) {
    stop.event = ptrace_abi::kEventStop;
    stop.info.si_signo = signal;
    stop.info.si_code = signal | (ptrace_abi::kEventStop << 8);
  }
  traced.TakeInterrupt();  // the stop an interrupt asked for
  thread.parked.at = ParkedCall::At::kNone;
  return StopForTracer(thread, stop);
}

void Supervisor::TracerGone(const Thread& tracer) {
  // The kernel's exit_ptrace: each tracee of the dead tracer is killed (PTRACE_O_EXITKILL) or
  // detached, leaving its stop without the signal it stopped for (a SIGSTOP does not stop it, a
  // caught signal's handler does not run: measured).
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
    tracee->traced->TakeInterrupt();
    if (tracee->traced->Stopped()) LeaveTraceStop(*tracee, 0);
    if (tracee->traced->Listening() && tracee->state == ThreadState::kBlocked) {
      tracee->wait.reset();  // listening in a stop of the supervisor's making: it runs on
      tracee->state = ThreadState::kReady;
    }
    tracee->traced.reset();
  }
  for (Process* process : killed) CollectDyingProcess(*process);
}

}  // namespace chess::supervisor
