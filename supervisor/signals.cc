// Signals for parked threads. The kernel does not deliver a signal to a thread stopped by its
// tracer; a thread parked in an emulated wait (futex, sleep, wait4, a read…) would hold a
// pending signal until its wait ended, or forever. Such a thread is released to run its real
// syscall instead: the kernel then sees the signal and applies its own rules (EINTR,
// SA_RESTART, default actions), and a restarted call comes back through the filter.
#include "supervisor/handlers/pending_signals.h"
#include "supervisor/supervisor.h"
#include "supervisor/handlers/transfer.h"

namespace chess::supervisor {
namespace {

constexpr MonoNanos kSignalScanInterval = 100'000'000;  // for signals from outside the tree

bool ParkedInEmulatedWait(const Thread& thread) {
  return thread.state == ThreadState::kBlocked && thread.parked.AtStop() &&
         !thread.in_vfork && !thread.process->dying;
}

}  // namespace

void Supervisor::ClearWait(Thread& thread) {
  futexes_.Remove(thread.tid);
  thread.wait.reset();
  thread.waits_on.clear();
  thread.waits_on_processes.clear();
}

void Supervisor::ReleaseToKernel(Thread& thread) {
  if (thread.parked.AtEntry() && thread.wait && thread.wait->deadline &&
      seccomp::PropertiesOf(thread.call.family).restarts_with_restart_syscall) {
    thread.restartable = Thread::Restartable{thread.call, thread.wait->deadline, thread.wait->timeout_result};
  }
  ClearWait(thread);
  thread.parked.result.reset();  // no emulated result: the kernel runs the call
  AbandonTransfer(thread);  // …or returns what a transfer moved so far
  thread.state = ThreadState::kReady;
}

void Supervisor::SignalSent(pid_t pid, bool thread) {
  if (pid == 0) {
    signal_check_all_ = true;
    return;
  }
  // `pid` is the program's.
  if (thread) {
    if (Thread* target = threads_.FindByProgramTid(pid)) signal_checks_.insert(target->process->tgid);
  } else if (Process* target = threads_.FindByProgramPid(pid)) {
    signal_checks_.insert(target->tgid);
  } else {
    signal_check_all_ = true;
  }
}

bool Supervisor::ReleaseThreadsWithPendingSignals(bool from_tick) {
  const MonoNanos now = EventTime();
  bool check_all = signal_check_all_ && !from_tick;
  if (now >= next_signal_scan_) {
    check_all = true;
    next_signal_scan_ = now + kSignalScanInterval;
  }
  if (!check_all && (from_tick || signal_checks_.empty())) return false;
  bool released = false;
  std::set<pid_t> process_signal_taken;
  for (const auto& [id, thread] : threads_.Live()) {
    const pid_t tgid = thread->process->tgid;
    if (!ParkedInEmulatedWait(*thread) || (!check_all && !signal_checks_.count(tgid))) continue;
    auto masks = ReadSignalMasks(thread->tid);
    if (!masks) continue;
    const std::optional<SignalWait> signals = thread->wait ? thread->wait->Signals() : std::nullopt;
    const SignalWait* wait = signals ? &*signals : nullptr;
    // A process-directed signal needs one thread that takes it; the first will do.
    const bool takes_process_signal = masks->WakingFromProcess(wait) != 0 && !process_signal_taken.count(tgid);
    if (masks->WakingFromThread(wait) == 0 && !takes_process_signal) continue;
    if (takes_process_signal) process_signal_taken.insert(tgid);
    released = true;
    const FamilyHandler handler = HandlerFor(thread->call.family);
    if (handler.on_signal != nullptr && thread->parked.AtEntry()) {
      const uint64_t waking = masks->WakingFromThread(wait) | masks->WakingFromProcess(wait);
      SyscallContext context{*thread, services_};
      const SignalAnswer answer = handler.on_signal(context, (waking & masks->caught) != 0);
      switch (answer.kind) {
        case SignalAnswer::Kind::kComplete:
          Wake(*thread, answer.value);
          continue;
        case SignalAnswer::Kind::kNative:
          break;
        case SignalAnswer::Kind::kNativeThenExit:
          ReleaseToKernel(*thread);
          thread->parked.to_exit = true;
          continue;
      }
    }
    ReleaseToKernel(*thread);
  }
  if (!from_tick) {
    signal_checks_.clear();
    signal_check_all_ = false;
  }
  return released;
}

}  // namespace chess::supervisor
