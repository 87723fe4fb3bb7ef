// Scheduling: which thread runs next, and resuming it. Every choice goes through the strategy;
// this file only computes who *can* run and carries the choice out.
#include <sched.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>

#include <cstdio>
#include <string>

#include "search/focus.h"
#include "search/replay_strategy.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/invariant.h"
#include "supervisor/supervisor.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/report/sync_object_names.h"
#include "supervisor/report/thread_report.h"
#include "supervisor/report/waits_for.h"
#include "supervisor/schedulable.h"

namespace chess::supervisor {
namespace {

// How far virtual time moves at each scheduling decision.
constexpr int64_t kDecisionTick = 1'000;

}  // namespace

void Supervisor::FireEarly(Thread& thread) {
  // Time jumps to its deadline, as if every thread that could have run had been slow: whatever
  // else falls due by then fires too, in order, so the program's clocks stay consistent.
  clocks_.Virtual()->AdvanceTo(*thread.wait->deadline);
  FireDueDeadlines();
}

bool Supervisor::ReleaseReadyWaiters() {
  const std::vector<Thread*>& ready = waiters_.FindReady();
  for (Thread* thread : ready) {
    // Its operation runs again when it is picked, and looks again: another thread may take
    // the data or the lock first. A thread inside a transfer re-enters its call instead.
    thread->state = ThreadState::kReady;
    if (thread->parked.at == ParkedCall::At::kExit) {
      thread->wait.reset();
    } else {
      thread->parked.at = ParkedCall::At::kOperationPending;
    }
  }
  return !ready.empty();
}

void Supervisor::FireDueDeadlines() {
  if (clocks_.Virtual() != nullptr) timers_.FireDue(clocks_.ProgramNow(), signal_scan_);
  const MonoNanos now = clocks_.ProgramNow();
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state != ThreadState::kBlocked || !thread->wait || !thread->wait->deadline ||
        *thread->wait->deadline > now) {
      continue;
    }
    const FamilyHandler handler = HandlerFor(thread->call.family);
    if (handler.on_timeout == nullptr) {
      Wake(*thread, thread->wait->timeout_result);
      continue;
    }
    SyscallContext context{*thread, services_};
    const TimeoutAnswer answer = handler.on_timeout(context);
    switch (answer.kind) {
      case TimeoutAnswer::Kind::kComplete:
        Wake(*thread, answer.value);
        break;
      case TimeoutAnswer::Kind::kNative:
        // The kernel runs the call, changed so that it returns at once.
        ClearWait(*thread);
        thread->parked.registers_dirty = thread->parked.registers_dirty || answer.registers_changed;
        thread->state = ThreadState::kReady;
        break;
    }
  }
}

void Supervisor::ScheduleNext() {
  for (;;) {
    clocks_.RefreshEventTime();
    if (CheckTimeout()) return;
    SettleKernelSleeps();
    if (PendingStopSignal() || result_) return;
    FireDueDeadlines();
    ReleaseThreadsWithPendingSignals();
    ReleaseReadyWaiters();
    const std::vector<search::ThreadId> enabled = EnabledThreads(threads_);
    if (enabled.empty()) {
      std::optional<MonoNanos> earliest;
      bool dying = false;
      for (const auto& [id, thread] : threads_.Live()) {
        if (thread->state == ThreadState::kBlocked && thread->wait && thread->wait->deadline) {
          earliest = std::min(earliest.value_or(*thread->wait->deadline), *thread->wait->deadline);
        }
        dying = dying || thread->state == ThreadState::kExiting || thread->process->dying ||
                thread->in_vfork;
      }
      if (auto timer = timers_.Earliest()) earliest = std::min(earliest.value_or(*timer), *timer);
      // Dying threads, a vfork parent, or a leader that exited before its threads (reaped only
      // after them): their events are on their way.
      if (dying || threads_.Live().empty()) {
        errno = 0;
        if (auto event = waiter_.Wait()) {
          clocks_.RefreshEventTime();
          HandleEvent(*event);
        } else if (errno == ECHILD) {
          Finish(search::Outcome::kError, "every traced task is gone but the root process was not reaped");
        }
        if (PendingStopSignal() || result_) return;
        continue;
      }
      const uint64_t isolated = IsolatedNamespaces();
      const TreeScope scope{clocks_.Virtual() != nullptr, (isolated & kPrivateTmp) != 0, (isolated & CLONE_NEWNET) != 0};
      const bool outside = waiters_.AnyOnOutside(execution_.dispatches, clocks_.WallNow(), scope);
      if (outside && options_.external_wait && clocks_.WallNow() - last_progress_ > options_.external_wait->count()) {
        FinishAsHang();
        return;
      }
      if (earliest && clocks_.Virtual() != nullptr && !(outside && waiters_.WaitsOnOutsideData())) {
        // A signal already pending (from outside the tree, say) comes first.
        signal_scan_.LookAtAll();
        if (ReleaseThreadsWithPendingSignals()) continue;
        // Virtual time: nothing can happen before the earliest deadline, so it is now. Sleepers
        // wake in deadline order, and a sleep costs no wall time. (Input expected from outside
        // holds time back: the program's timeout must leave the outside world its chance.)
        clocks_.Virtual()->AdvanceTo(*earliest);
        continue;
      }
      if (earliest || outside) {
        // Nothing can run until the earliest deadline (sleepers wake in deadline order) or
        // until the outside world does something, which is looked for with a growing
        // interval; and now and then for signals from outside. The program's clock, if
        // virtual, follows the real time spent waiting.
        outside_poll_nanos_ = std::clamp<int64_t>(outside_poll_nanos_ * 2, 1'000'000, 50'000'000);
        const MonoNanos started = clocks_.WallNow();
        MonoNanos until = started + (outside ? outside_poll_nanos_ : 100'000'000);
        if (earliest) until = std::min(until, started + (*earliest - clocks_.ProgramNow()));
        if (auto event = waiter_.WaitUntil(until)) {
          clocks_.RefreshEventTime();
          HandleEvent(*event);
        }
        AdvanceTime(log_->OutsideWait(execution_.points, clocks_.WallNow() - started));
        if (PendingStopSignal() || result_) return;
        continue;
      }
      // A pending signal (a SIGCHLD handler, say) may still wake someone: look before
      // declaring a deadlock.
      signal_scan_.LookAtAll();
      if (ReleaseThreadsWithPendingSignals()) continue;
      if (options_.stop_at_failure) {
        HandOver("at the deadlock");
        return;
      }
      Finish(search::Outcome::kDeadlock);
      result_->threads = BuildThreadReports(threads_, futexes_);
      result_->waits_for_cycle = ExplainWaits(threads_, futexes_, result_->threads);
      return;
    }
    // Under real time a deadline cannot be made to come sooner.
    const std::vector<search::ThreadId> timed =
        clocks_.Virtual() != nullptr ? TimedThreads(threads_) : std::vector<search::ThreadId>{};
    search::SchedulingContext context;
    context.enabled = enabled;
    context.timed = timed;
    if (last_ != nullptr) {
      context.current = last_->id;
      context.current_stop = execution_.last_stop;
      context.point = last_->point;
    }
    context.locks = &lock_requests_;
    search::FocusedChoices focused;
    if (!options_.focus.empty()) {
      focused = search::NarrowToFocus(context, [this](search::ThreadId id) {
        const Thread* thread = threads_.Find(id);
        return thread != nullptr && thread->process->focused;
      });
      context.enabled = focused.enabled;
      context.timed = focused.timed;
    }
    if (options_.stop_before_decision && execution_.points == *options_.stop_before_decision) {
      HandOver("before decision " + std::to_string(execution_.points));
      return;
    }
    if (last_ != nullptr && options_.backtrace_before.count(execution_.points) != 0) {
      execution_.decision_stacks[execution_.points] = StackWhereParked(*last_);
    }
    if (last_ != nullptr && (last_->point.op == search::OpKind::kSyncOp ||
                             (search::AtInstruction(last_->point.op) && last_->point.resource != 0))) {
      sync_object_names_.Name(*last_, *log_);
    }
    const search::ThreadId picked = strategy_.PickThread(context);
    if (last_ != nullptr && context.enabled.size() + context.timed.size() > 1) {
      execution_.images.Choice(last_->process->image);
    }
    ++execution_.points;
    AdvanceTime(kDecisionTick);
    if (auto divergence = strategy_.Divergence()) {
      Finish(search::Outcome::kDivergence, *divergence);
      result_->threads = BuildThreadReports(threads_, futexes_);
      return;
    }
    if (auto verdict = strategy_.Verdict()) {
      // The strategy ends the execution here (a livelock, a spinning thread, the step limit):
      // every thread is parked, as it stands.
      Finish(verdict->outcome, verdict->message);
      result_->threads = BuildThreadReports(threads_, futexes_);
      if (verdict->outcome == search::Outcome::kLivelock) result_->livelock_cycles = ExplainLivelock(execution_.history, threads_);
      return;
    }
    Thread* next = threads_.Find(picked);
    CHESS_CHECK(next != nullptr, "the strategy picked a thread that does not exist");
    execution_.history.Record(next->id.value, next->point, next->regs.Ip());
    if (!Schedulable(*next)) {
      CHESS_CHECK(std::find(context.timed.begin(), context.timed.end(), picked) != context.timed.end(),
                  "the strategy picked a thread that cannot run");
      FireEarly(*next);
    }
    CHESS_CHECK(Schedulable(*next), "a thread whose deadline was fired cannot run");
    if (Dispatch(*next) || result_) return;
  }
}

bool Supervisor::Dispatch(Thread& thread) {
  ParkedCall& parked = thread.parked;
  if (race_sampling_) {
    // Its operation happens now (a woken waiter's again: it acquires what its waker released).
    race_sampling_->Performed(thread, thread.point);
    if (thread.point.op == search::OpKind::kThreadExit) race_sampling_->Ended(thread);
  }
  if (parked.at == ParkedCall::At::kOperationPending) {
    parked.at = ParkedCall::At::kEntry;
    SyscallContext context{thread, services_};
    const ExecuteAnswer answer = HandlerFor(thread.call.family).execute(context);
    // The call goes on or returns: anything it set up to wait for is over.
    if (answer.kind != ExecuteAnswer::Kind::kBlock) ClearWait(thread);
    switch (answer.kind) {
      case ExecuteAnswer::Kind::kBlock:
        // It turned out to wait: a free switch to someone else.
        thread.state = ThreadState::kBlocked;
        last_ = &thread;
        execution_.last_stop = search::StopReason::kBlocked;
        return false;
      case ExecuteAnswer::Kind::kComplete:
        parked.result = answer.value;
        break;
      case ExecuteAnswer::Kind::kNative:
        parked.registers_dirty = parked.registers_dirty || answer.registers_changed;
        break;
      case ExecuteAnswer::Kind::kNativeThenExit:
        parked.registers_dirty = true;
        parked.to_exit = true;
        break;
    }
  }
  // The slice and the syscall budget restart on a switch and after a yield or a block, never
  // merely at a scheduling point.
  if (&thread != last_ || execution_.last_stop != search::StopReason::kReachedPoint) {
    // Alone while a deadline waits, its turn may end before the first look: counted from now.
    const bool alone_with_deadline = clocks_.Virtual() != nullptr && !AnyOtherSchedulable(threads_, thread) &&
                                     (AnyDeadline(threads_) || timers_.Earliest().has_value());
    execution_.slice.SwitchedIn(clocks_.EventTime(), alone_with_deadline ? ProcessCpuNanos(thread.process->tgid)
                                                                         : std::nullopt);
  }
  if (parked.at == ParkedCall::At::kEntryPutOff) {
    // A syscall put off by the budget: its handler runs now. One put off by a replayed
    // interrupt is reached again, as the recording's thread reached it after its interrupt.
    CHESS_CHECK(parked.Plain(), "a syscall put off before its handler ran has something to store");
    parked.at = ParkedCall::At::kEntry;
    thread.state = ThreadState::kRunning;
    running_ = &thread;
    ++execution_.dispatches;
    if (thread.point.op == search::OpKind::kInterrupted) {
      ArriveAtSyscall(thread);
    } else {
      TakeUpSyscall(thread);
    }
    return true;
  }
  if (thread.traced && thread.traced->TakeVforkWait()) {
    // Let go from its vfork event stop by its emulated tracer: it sleeps in the kernel until
    // its child lets go of its memory (PTRACE_EVENT_VFORK_DONE), blocked like any waiter.
    thread.in_vfork = true;
    thread.state = ThreadState::kBlocked;
    last_ = &thread;
    execution_.last_stop = search::StopReason::kBlocked;
    Resume(thread, std::exchange(thread.pending_signal, 0));
    return false;
  }
  thread.state = ThreadState::kRunning;
  running_ = &thread;
  ++execution_.dispatches;
  if (thread.traced && thread.traced->TakeExitGoingOn()) {
    // Its emulated tracer let it go from its exit event stop: the exit goes on from there.
    OnExitEvent(thread);
    return true;
  }
  outside_poll_nanos_ = 0;
  if (AnyOtherSchedulable(threads_, thread)) AdjustTick(true);
  if (thread.pending_signal != 0 && search::AtInstruction(thread.point.op)) {
    // Its handler runs first, and must not find the thread in a supervisor's copy: it goes on
    // from the instruction itself, whose breakpoint stops it again after the handler.
    thread.regs.raw().rip = thread.point.instruction;
  }
  Resume(thread, std::exchange(thread.pending_signal, 0));
  return true;
}

void Supervisor::Park(Thread& thread, search::StopReason reason) {
  running_ = nullptr;
  last_ = &thread;
  search::SchedulingPoint& point = thread.point;
  point.thread = thread.id;
  if (point.op == search::OpKind::kInterrupted || point.op == search::OpKind::kThreadStart) {
    point.syscall = -1;
  } else {
    point.syscall = thread.parked.AtStop() ? thread.call.nr : -1;
  }
  // A wait under its own signal mask (pselect6, ppoll, rt_sigsuspend, sigtimedwait) may unblock
  // a signal that was already pending, blocked, when the call was made: natively the call ends
  // at once. It is looked for at the next decision, as for a signal sent now.
  if (reason == search::StopReason::kBlocked && thread.wait) {
    const std::optional<SignalWait> signals = thread.wait->Signals();
    if (signals && (signals->mask || signals->awaited != 0)) signal_scan_.MayHaveSignal(thread.process->tgid);
  }
  // Where: after how many of its syscalls. An interrupt presented at a syscall the thread has
  // not entered yet (a replay's, see OnSeccompStop) came before that syscall.
  const bool put_off = thread.parked.at == ParkedCall::At::kEntryPutOff;
  point.index = point.op == search::OpKind::kInterrupted && put_off ? thread.syscalls - 1 : thread.syscalls;
  execution_.last_stop = reason;
}

void Supervisor::CompleteSyscall(Thread& thread, int64_t value) {
  if (thread.parked.AtEntry()) {
    // With orig_rax = -1 the kernel skips the syscall and leaves rax to the supervisor.
    if (thread.traced) thread.traced->NoteEmulatedCall(thread.call.nr);
    thread.regs.SetSyscallResult(value);
  } else if (thread.parked.at == ParkedCall::At::kExit) {
    thread.regs.SetReturn(value);
  } else {
    return;
  }
  ptrace::SetRegisters(thread.tid, thread.regs);
  thread.parked.registers_dirty = false;
}

void Supervisor::Finish(search::Outcome outcome, std::string message) {
  if (result_) return;
  result_.emplace();
  result_->outcome = outcome;
  result_->message = std::move(message);
}

bool Supervisor::CheckHang() {
  if (!options_.external_wait || running_ == nullptr) return false;
  const MonoNanos now = clocks_.WallNow();
  if (now - last_progress_ < options_.external_wait->count()) return false;
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread != running_ && thread->state != ThreadState::kBlocked &&
        thread->state != ThreadState::kExternal) {
      return false;
    }
  }
  if (!AsleepInKernel(running_->tid)) {
    last_progress_ = now;  // computing is progress
    return false;
  }
  // The running thread is asleep in the kernel and everyone else waits: a hang on the outside.
  if (!ptrace::Interrupt(running_->tid)) return false;
  if (auto stop = ptrace::WaitFor(running_->tid)) {
    Registers regs;
    if (ptrace::GetRegisters(running_->tid, regs)) {
      running_->call.nr = regs.SyscallNr();
      for (int i = 0; i < 6; ++i) running_->call.args[i] = regs.Arg(i);
    }
  }
  running_->state = ThreadState::kExternal;
  running_->parked.at = ParkedCall::At::kNone;
  running_ = nullptr;
  FinishAsHang();
  return true;
}

bool Supervisor::CheckTimeout() {
  // clocks_.EventTime(): the clock was read for the event being handled; no extra read per stop.
  if (result_ || !options_.execution_timeout || clocks_.EventTime() - started_ < options_.execution_timeout->count()) {
    return false;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", static_cast<double>(options_.execution_timeout->count()) / 1e9);
  Finish(search::Outcome::kTimeout, std::string("the execution ran longer than --execution-timeout (") + seconds + " s)");
  result_->threads = SnapshotThreads();
  return true;
}

void Supervisor::FinishAsHang() {
  if (options_.stop_at_failure) {
    HandOver("at the hang");
    return;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", static_cast<double>(options_.external_wait->count()) / 1e9);
  Finish(search::Outcome::kHang, std::string("every thread waited only on the outside world for longer than ") +
                                     "--external-wait (" + seconds + " s)");
  result_->threads = BuildThreadReports(threads_, futexes_);
  result_->waits_for_cycle = ExplainWaits(threads_, futexes_, result_->threads);
}

}  // namespace chess::supervisor
