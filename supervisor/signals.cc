// Signals for parked threads. A thread parked in an emulated wait that the SignalScan finds with
// a signal pending (the kernel does not deliver it to a thread stopped by its tracer) is
// released to run its real syscall instead: the kernel then sees the signal and applies its own
// rules (EINTR, SA_RESTART, default actions), and a restarted call comes back through the
// filter.
#include "supervisor/supervisor.h"
#include "supervisor/handlers/transfer.h"

namespace chess::supervisor {

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

bool Supervisor::ReleaseThreadsWithPendingSignals(bool from_tick) {
  const std::vector<SignalScan::Taker>& takers = signal_scan_.FindTakers(clocks_.EventTime(), from_tick);
  for (const auto& [thread, caught] : takers) {
    const FamilyHandler handler = HandlerFor(thread->call.family);
    if (handler.on_signal != nullptr && thread->parked.AtEntry()) {
      SyscallContext context{*thread, services_};
      const SignalAnswer answer = handler.on_signal(context, caught);
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
  return !takers.empty();
}

}  // namespace chess::supervisor
