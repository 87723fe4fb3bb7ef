// Kernel sleeps the scheduler accounts for. A thread the watchdog finds asleep in the kernel, in
// a call chess-trace does not model (the open of a FIFO whose other end no one has open, a
// msgrcv of a type not queued), has to be interrupted so that others can run — and an
// interrupted call undoes what it had done so far (the FIFO's count of openers, the queue's
// list of receivers) and is made again only when its thread runs again. Two processes opening
// the two ends of a FIFO, each interrupted while the other runs, would never meet. So the
// interrupted thread makes its call again at once, with its exit stop armed (PTRACE_SYSCALL),
// and sleeps there, disabled like any blocked thread, while the others run: the kernel's
// wake-up brings it to its exit stop, and it is ready again, at the call's exit.
//
// Whether a sleeper woke must not depend on when the kernel reports it. A wake-up is made by a
// call of the thread that ran, and is complete when that call returns; so before every decision
// each sleeper is settled: asleep ('S' or 'D' in /proc/TID/stat), or its next stop is waited for.
// The sleepers are the thread table's KernelSleepers, kept as threads enter and leave the sleep
// (ThreadTable::MoveParkedCall) and die: a decision with none asleep costs nothing here.
#include <time.h>

#include "supervisor/invariant.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

// How long a sleeper that is neither asleep nor stopped is waited for before a decision goes on
// without it: it is on its way into its sleep or out of it, which takes microseconds.
constexpr MonoNanos kSettleNanos = 100'000'000;
constexpr timespec kSettlePause{0, 20'000};

}  // namespace

bool Supervisor::SleepInKernel(Thread& thread) {
  // An observer traps every call, and a program's own filter may answer for the call made
  // again: those calls restart when their thread is picked again, as they would have.
  if (options_.observer != nullptr || !thread.filters.Empty()) return false;
  if (!ptrace::ResumeToSyscallExit(thread.tid)) return false;  // its entry stop comes first
  threads_.MoveParkedCall(thread, ParkedCall::At::kReentering);
  thread.state = ThreadState::kBlocked;
  thread.wait = Wait{KernelSleep{}};
  return true;
}

bool Supervisor::OnKernelSleepStop(Thread& thread, const ptrace::WaitEvent& event) {
  if (!thread.parked.InKernelSleep()) return false;
  const ParkedCall& parked = thread.parked;
  if (event.kind == ptrace::StopKind::kSyscallTrap && parked.at == ParkedCall::At::kReentering) {
    // Its entry stop: into the call, to sleep until the kernel wakes it.
    threads_.MoveParkedCall(thread, ParkedCall::At::kAsleepInside);
    ptrace::ResumeToSyscallExit(thread.tid);
    return true;
  }
  if (event.kind == ptrace::StopKind::kSeccomp) {
    // A call chess-trace traps, made again: the kernel runs it as it did the first time.
    ptrace::ResumeToSyscallExit(thread.tid);
    return true;
  }
  ClearWait(thread);
  if (event.kind == ptrace::StopKind::kSyscallTrap) {
    // Its exit stop: the kernel woke it (or a signal did). It goes on from the call's exit.
    if (!ptrace::GetRegisters(thread.tid, thread.regs)) return true;  // killed meanwhile: death follows
    threads_.MoveParkedCall(thread, ParkedCall::At::kExit);
    thread.state = ThreadState::kReady;
    last_progress_ = clocks_.WallNow();
    return true;
  }
  // A signal, a group stop, its exit or death ended the sleep: it is stopped outside the call,
  // and the event's own handler takes it from here.
  threads_.MoveParkedCall(thread, ParkedCall::At::kNone);
  thread.state = ThreadState::kReady;
  return false;
}

void Supervisor::SettleKernelSleeps() {
  if (threads_.KernelSleepers().empty()) return;
  std::vector<pid_t> sleepers;  // settling one handles events, which may change the set
  for (const auto& [id, thread] : threads_.KernelSleepers()) {
    CHESS_CHECK(thread->Alive() && thread->parked.InKernelSleep(), "a kernel sleeper that is not asleep in the kernel");
    sleepers.push_back(thread->tid);
  }
  for (const pid_t tid : sleepers) {
    const MonoNanos until = clocks_.WallNow() + kSettleNanos;
    for (;;) {
      const Thread* thread = threads_.Find(tid);
      if (thread == nullptr || !thread->Alive() || !thread->parked.InKernelSleep()) break;
      if (auto event = ptrace::PollFor(tid)) {
        HandleEvent(*event);
        continue;
      }
      const std::optional<char> state = KernelState(tid);
      if (!state) break;  // gone: its death is reported
      if ((*state == 'S' || *state == 'D') && thread->parked.at == ParkedCall::At::kAsleepInside) break;
      if (PendingStopSignal() || clocks_.WallNow() > until) break;
      nanosleep(&kSettlePause, nullptr);
    }
  }
}

}  // namespace chess::supervisor
