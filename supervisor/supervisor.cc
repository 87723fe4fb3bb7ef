#include "supervisor/supervisor.h"

#include <signal.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "search/fnv1a.h"
#include "seccomp/filter.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/foreign_abi.h"
#include "supervisor/invariant.h"
#include "supervisor/sandbox.h"
#include "supervisor/schedulable.h"
#include "supervisor/handlers/pending_signals.h"
#include "supervisor/report/syscall_digest.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/report/thread_report.h"
#include "supervisor/handlers/transfer.h"

namespace chess::supervisor {
namespace {

// The tick while the running thread is alone: only deadlines, signals and hangs need it.
constexpr int64_t kLoneTickNanos = 50'000'000;

// The tick while another thread could run: the watchdog and the slice need it.
int64_t FastTick(std::chrono::nanoseconds slice) {
  return std::clamp<int64_t>(std::min<int64_t>(slice.count(), kWatchdogNanos) / 2, 250'000, kLoneTickNanos);
}

}  // namespace

Supervisor::Supervisor(SupervisorOptions options, search::Strategy& strategy)
    : options_(std::move(options)), strategy_(strategy), clocks_(options_.epoch) {
  execution_.slice = SliceMeter(options_.slice.count());
  if (options_.seed) execution_.random.emplace(*options_.seed);
  if (options_.log != nullptr) log_ = options_.log;
  if (options_.shared_init != nullptr) init_ = options_.shared_init;
  if (options_.atomic_points) {
    atomic_points_.emplace(*options_.atomic_points, options_.code_cache != nullptr ? *options_.code_cache : own_code_cache_,
                           options_.preload_shim, [this](const std::string& text) { Notice(text); });
    if (options_.atomic_points->mode == search::AtomicPointPlan::Mode::kLearn && options_.atomic_points->detect_races) {
      race_sampling_.emplace(execution_.atomics.count);
    }
  }
}

Result<void> Supervisor::Isolate(const LaunchSpec& spec) {
  if (options_.isolation.namespaces == 0) return {};
  if (!init_->Reusable()) {
    init_->Stop();  // an earlier execution's, which cannot serve again
    if (auto started = init_->Start(options_.isolation, ProgramMain(spec)); !started) {
      if (options_.isolation_required) return Error{started.error()};
      Notice(started.error() + "; running without isolation (pids and the hostname are the machine's)");
      return {};
    }
  }
  isolated_ = init_->Namespaces();
  threads_.TranslateIds((isolated_ & CLONE_NEWPID) != 0);
  return {};
}

void Supervisor::EnterIpcNamespace() {
  // SysV IPC objects are the tree's: chess-trace looks at them (semctl, msgctl) from there.
  // Each program gets an IPC namespace of its own (see IsolatedInit).
  const std::string path = "/proc/" + std::to_string(root_pid_) + "/ns/ipc";
  const int ns = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ipc_visible_ = ns >= 0 && setns(ns, CLONE_NEWIPC) == 0;  // without root, the kernel refuses
  if (ns >= 0) close(ns);
}

void Supervisor::AdvanceTime(int64_t nanos) {
  if (clocks_.Virtual() == nullptr) return;
  clocks_.Virtual()->Advance(nanos);
  if (running_ != nullptr) running_->cpu_nanos += nanos;
}

int64_t Supervisor::ComputedSlice() const {
  if (clocks_.Virtual() == nullptr) return options_.slice.count();
  std::optional<MonoNanos> earliest = timers_.Earliest();
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kBlocked && thread->wait && thread->wait->deadline) {
      earliest = std::min(earliest.value_or(*thread->wait->deadline), *thread->wait->deadline);
    }
  }
  return execution_.slice.ComputedSlice(earliest, clocks_.ProgramNow());
}

ExecutionResult Supervisor::Run(const LaunchSpec& spec) {
  const MonoNanos started = started_ = clocks_.WallNow();
  if (auto started_waiter = waiter_.Start(FastTick(options_.slice)); !started_waiter) {
    ExecutionResult failed;
    failed.message = started_waiter.error();
    return failed;
  }
  if (auto isolated = Isolate(spec); !isolated) {
    ExecutionResult failed;
    failed.message = isolated.error();
    return failed;
  }
  // Forked from the template when there is one, else started by execve.
  std::optional<ForkServer::Forked> forked;
  if (UsesForkServer(options_, *init_) && options_.fork_server->Ready(*init_)) {
    if (auto fork = options_.fork_server->Fork()) forked = *fork;
  }
  LaunchedProgram launched;
  if (forked) {
    launched.pid = forked->pid;
  } else {
    auto started_program = Launch(spec, init_->Started() ? init_ : nullptr);
    if (!started_program) {
      init_->Stop();  // whatever went wrong, the next execution starts from new namespaces
      ExecutionResult failed;
      failed.message = started_program.error();
      return failed;
    }
    launched = *started_program;
  }
  root_pid_ = launched.pid;
  if (isolated_ & CLONE_NEWIPC) EnterIpcNamespace();
  execution_.history.Clear();
  Thread* main_thread = nullptr;
  InvariantContext::Set(&threads_);
  if (forked) {
    if (AdoptForked(*forked, main_thread)) ptrace::Resume(root_pid_);
  } else {
    // Operations on the files the root starts with are never I/O points.
    if (options_.io_points) execution_.starting_files = OpenFiles(root_pid_);
    Process& root = threads_.AddProcess(root_pid_, threads_.NewAddressSpace());
    main_thread = &threads_.AddThread(root_pid_, root);
    main_thread->state = ThreadState::kRunning;
    main_thread->point = {main_thread->id, search::OpKind::kThreadStart};
    // The first execution that can leaves a template for the next ones: the strategy's calls
    // up to the template point are kept.
    strategy_.Tape(UsesForkServer(options_, *init_) && !options_.fork_server->Tried());
    strategy_.BeginExecution();
  }
  log_->ThreadStarted(main_thread->id, main_thread->process->program_pid, main_thread->program_tid);
  running_ = main_thread;
  last_progress_ = clocks_.WallNow();
  execution_.slice.Begin(last_progress_);

  while (!result_) {
    if (int signal = PendingStopSignal()) {
      Finish(search::Outcome::kError, std::string("stopped by SIG") + sigabbrev_np(signal));
      result_->stopped_by_signal = signal;
      result_->threads = SnapshotThreads();
      break;
    }
    if (CheckTimeout()) break;
    if (running_ != nullptr) {
      auto event = waiter_.Wait();
      clocks_.RefreshEventTime();
      if (event) {
        HandleEvent(*event);
      } else {
        OnTick();
      }
    } else {
      ScheduleNext();
    }
  }
  KillTree();
  InvariantContext::Set(nullptr);
  ExecutionResult result = std::move(*result_);
  result.forked = forked.has_value();
  if (launched.exec_error_fd >= 0) {
    if (auto exec_error = ReadExecError(launched.exec_error_fd)) {
      result.exec_errno = *exec_error;
      result.outcome = search::Outcome::kError;
    }
    close(launched.exec_error_fd);
  }
  result.scheduling_points = execution_.points;
  result.refused = execution_.refused;
  result.images = execution_.images.All();
  result.decision_stacks = std::move(execution_.decision_stacks);
  result.names = std::move(execution_.names);
  result.atomics = std::move(execution_.atomics.count);
  result.threads_created = threads_.ThreadsCreated();
  result.wall_seconds = static_cast<double>(clocks_.WallNow() - started) / 1e9;
  if (clocks_.Virtual() != nullptr) result.virtual_seconds = static_cast<double>(clocks_.Virtual()->Elapsed()) / 1e9;
  return result;
}

std::vector<ThreadReport> Supervisor::SnapshotThreads() {
  // Stop the running thread too, so every stack can be read; bounded, since it may be dying.
  // Only its own report is taken: another's (an exit stop, a death) is KillTree's to collect.
  if (running_ != nullptr && ptrace::Interrupt(running_->tid)) {
    for (int i = 0; i < 100; ++i) {
      bool gone = false;
      const std::optional<int> status = ptrace::PollChild(running_->tid, gone);
      if (status || gone) {
        const ptrace::WaitEvent event = ptrace::Classify(running_->tid, status.value_or(0));
        if (gone || event.kind == ptrace::StopKind::kExited || event.kind == ptrace::StopKind::kKilled) {
          threads_.MarkDead(*running_);
          running_ = nullptr;
        }
        break;
      }
      const timespec pause{0, 1'000'000};
      nanosleep(&pause, nullptr);
    }
  }
  return BuildThreadReports(threads_, futexes_);
}

void Supervisor::HandleEvent(const ptrace::WaitEvent& event) {
  Thread* thread = threads_.Find(event.tid);
  if (thread == nullptr) {
    // A new thread can report its first stop before its parent reports the CLONE event.
    if (event.kind != ptrace::StopKind::kExited && event.kind != ptrace::StopKind::kKilled) {
      early_stops_[event.tid] = event;
    }
    return;
  }
  // Another stop can absorb a pending PTRACE_INTERRUPT (seen with PTRACE_EVENT_FORK): the
  // promised PTRACE_EVENT_STOP may never come. Any stop settles the request; if the thread
  // still needs stopping, the next tick asks again.
  if (event.kind != ptrace::StopKind::kExited && event.kind != ptrace::StopKind::kKilled) {
    thread->interrupt = Thread::Interrupt::kNone;
  }
  if (OnKernelSleepStop(*thread, event)) return;
  switch (event.kind) {
    case ptrace::StopKind::kExited:
    case ptrace::StopKind::kKilled:
      OnDeath(*thread, event);
      break;
    case ptrace::StopKind::kSeccomp:
      OnSeccompStop(*thread);
      break;
    case ptrace::StopKind::kEvent:
      switch (event.value) {
        case PTRACE_EVENT_CLONE:
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK:
          OnThreadCreated(*thread, event.value);
          break;
        case PTRACE_EVENT_EXEC:
          OnExec(*thread);
          break;
        case PTRACE_EVENT_EXIT:
          OnExitEvent(*thread);
          break;
        case PTRACE_EVENT_VFORK_DONE:
          // The vfork child exec'd or exited; the parent stopped here and may be scheduled.
          thread->in_vfork = false;
          if (thread->Alive()) thread->state = ThreadState::kReady;
          if (running_ == thread) Park(*thread, search::StopReason::kReachedPoint);
          if (thread->traced) TraceVforkDone(*thread);
          break;
        case PTRACE_EVENT_STOP:
          OnInterruptStop(*thread);
          break;
        default:
          ptrace::Resume(thread->tid);
          break;
      }
      break;
    case ptrace::StopKind::kSignal:
      OnSignalStop(*thread, event.value);
      break;
    case ptrace::StopKind::kSyscallTrap:
      // Asked for by kNativeThenExit, from a seccomp stop: the call's exit; or by the program's
      // own tracer (PTRACE_SYSCALL), for a call's entry or exit.
      if (thread->traced && thread->parked.at != ParkedCall::At::kInside &&
          thread->parked.at != ParkedCall::At::kInsideObserved) {
        OnTracedSyscallStop(*thread);
        break;
      }
      OnSyscallExitStop(*thread);
      break;
    case ptrace::StopKind::kGroupStop:
      if (thread->traced && TraceGroupStop(*thread, event.value)) break;
      OnGroupStop(*thread);
      break;
  }
}

void Supervisor::AdjustTick(bool others_runnable) {
  if (others_runnable) {
    waiter_.SetTick(FastTick(options_.slice));
    return;
  }
  // Alone: wake for the earliest deadline, or now and then for signals and hangs. (In virtual
  // time a deadline is reached by slices, which need the fast tick: see OnTick.)
  int64_t tick = kLoneTickNanos;
  const MonoNanos now = clocks_.ProgramNow();
  for (const auto& [id, thread] : threads_.Live()) {
    if (thread->state == ThreadState::kBlocked && thread->wait && thread->wait->deadline) {
      tick = clocks_.Virtual() ? FastTick(options_.slice) : std::min<int64_t>(tick, *thread->wait->deadline - now);
    }
  }
  // Rounded to the fast tick, so that a string of deadlines does not re-arm the timer each time.
  const int64_t fast = FastTick(options_.slice);
  waiter_.SetTick(std::max<int64_t>(fast, tick / fast * fast));
}

void Supervisor::OnTick() {
  if (running_ == nullptr) return;
  const MonoNanos now = clocks_.WallNow();
  if (CheckHang()) return;
  // With virtual time a tick changes nothing of the program's state — deadlines fire, waiters
  // and takers of signals are released at decisions only — so what the program sees never
  // depends on when ticks came; the tick only decides whether the running thread must stop.
  if (clocks_.Virtual() == nullptr) {
    // Signals from outside the tree may be for a parked thread, which must get to take them.
    ReleaseThreadsWithPendingSignals(true);
  }
  if (running_->interrupt != Thread::Interrupt::kNone) return;
  if (clocks_.Virtual() == nullptr) {
    FireDueDeadlines();
    ReleaseReadyWaiters();
  }
  // Interrupting is pointless when no other thread could use the CPU.
  const bool others_runnable =
      AnyOtherSchedulable(threads_, *running_) || (clocks_.Virtual() != nullptr && !waiters_.FindReady().empty());
  // In virtual time a sleeper's deadline comes only as the running thread uses up slices.
  const bool sleepers = clocks_.Virtual() != nullptr && (AnyDeadline(threads_) || timers_.Earliest().has_value());
  // Waiters on the outside become runnable only when looked at: look often while there are any.
  AdjustTick(others_runnable || sleepers || waiters_.AnyOnEvents());
  if (!others_runnable && !sleepers) return;
  // The watchdog looks sooner than the slice: a thread asleep in the kernel in a syscall the
  // table does not trap is not using the CPU, and everyone else would wait for nothing.
  SliceMeter& slice = execution_.slice;
  slice.AloneUntil(others_runnable ? std::nullopt : std::optional(ComputedSlice()));
  if (!slice.DueForLook(now)) return;
  // A used-up slice makes the thread give way at its next syscall (OnSeccompStop). Only a
  // thread that makes none for kSilentSlices slices, or is asleep in the kernel, is interrupted
  // where it is: a place no replay can find again exactly.
  // The CPU time of the thread's process: only this thread of it runs (the serializer sees to
  // that).
  std::optional<int64_t> cpu = ProcessCpuNanos(running_->process->tgid);
  if (!cpu) cpu = clocks_.WallNow();
  if (slice.SliceUsed(*cpu) && options_.slice_yields && !strategy_.YieldsAt(running_->id, running_->syscalls)) {
    slice.YieldAtNextSyscall();
  }
  // Asleep, it holds up the others, or the deadlines that only come as time passes.
  if (!slice.Stuck(AsleepInKernel(running_->tid))) return;
  if (!strategy_.MayInterrupt(running_->id, running_->syscalls)) return;  // a replay: not here
  if (ptrace::Interrupt(running_->tid)) {
    running_->interrupt = Thread::Interrupt::kRequested;
    slice.InterruptAsked(execution_.dispatches);
  }
}

void Supervisor::OnSeccompStop(Thread& thread) {
  CHESS_CHECK(&thread == running_, "seccomp stop of a thread that was not running");
  // One GETREGS gives the call and its arguments, and completing it is one SETREGS.
  if (!ptrace::GetRegisters(thread.tid, thread.regs)) return;  // killed meanwhile: death follows
  // The prefix ends at the root's first clone: the template point (supervisor_fork.cc).
  if (strategy_.Taping()) MakeTemplate(thread);
  if (result_) return;  // the template could not be made, and the program died of it
  thread.call.trap = TrappedCall::Trap::kSeccomp;
  thread.call.nr = thread.regs.SyscallNr();
  for (int i = 0; i < 6; ++i) thread.call.args[i] = thread.regs.Arg(i);
  TranslateI386Exit(thread);
  OnTrappedCall(thread);
}

void Supervisor::OnTrappedCall(Thread& thread) {
  last_progress_ = clocks_.EventTime();
  ++thread.syscalls;
  thread.parked.at = ParkedCall::At::kEntry;
  // A new call: whatever the thread waited for before is over (it was woken to make it).
  thread.wait.reset();
  if (thread.call.nr != SYS_restart_syscall) thread.restartable.reset();
  if (thread.transfer && !ReentersTransfer(thread)) thread.transfer.reset();
  if (options_.observer != nullptr) {
    if (!Observe(thread, EntryEvent(thread))) return;
    // Trapped only to be looked at (the filter traps everything for an observer).
    const std::optional<unsigned long> data =
        thread.call.trap == TrappedCall::Trap::kHypercall ? std::nullopt : ptrace::EventMessage(thread.tid);
    if (data && *data == seccomp::kObserveOnly) {
      Resume(thread);
      return;
    }
  }
  if (options_.stop_at_failure && thread.call.nr == SYS_exit_group && thread.process->tgid == root_pid_ &&
      static_cast<int>(thread.call.args[0]) != 0) {
    running_ = nullptr;
    HandOver("at the root's exit_group(" + std::to_string(static_cast<int>(thread.call.args[0])) + ")");
    return;
  }
  ArriveAtSyscall(thread);
}

void Supervisor::ArriveAtSyscall(Thread& thread) {
  // A replay whose recording interrupted the thread before this syscall (its slice is CPU
  // time, which varies: here it got further): the interrupt is presented now, and the thread
  // arrives here again when it is picked — for the recording's next interrupt, when the thread
  // computed for more than one slice, or its fairness yield — so the schedule lines up with it.
  if (strategy_.InterruptedBefore(thread.id, thread.syscalls - 1)) {
    PutOffSyscall(thread, search::OpKind::kInterrupted);
    return;
  }
  if (thread.native_once) {
    TakeUpSyscall(thread);
    return;
  }
  // Fairness: a thread that used up its slice, or made kSyscallBudget syscalls in a row without
  // blocking or yielding, gives the others a turn — at a syscall, so that where it gave way is
  // a point a replay finds again (a replay gives way exactly where the recording did). The
  // call itself is taken up when the thread is picked again.
  const bool turn_over = execution_.slice.CountSyscall();
  const std::optional<bool> replayed = strategy_.YieldsAt(thread.id, thread.syscalls);
  const bool yields = replayed.value_or(turn_over);
  strategy_.Resolved(yields);
  if (yields) {
    PutOffSyscall(thread, search::OpKind::kFairnessYield);
    return;
  }
  TakeUpSyscall(thread);
}

void Supervisor::PutOffSyscall(Thread& thread, search::OpKind why) {
  // The thread gives way before its call is looked at; TakeUpSyscall runs when it is picked.
  thread.parked.at = ParkedCall::At::kEntryPutOff;
  thread.state = ThreadState::kReady;
  thread.point = {thread.id, why};
  AdvanceTime(ComputedSlice());  // it computed for a slice, as a backstop interrupt says
  Park(thread, search::StopReason::kYielded);
}

void Supervisor::TakeUpSyscall(Thread& thread) {
  if (thread.native_once) {
    // The call again after its transfer was abandoned: the kernel runs it from the start.
    thread.native_once = false;
    Apply(thread, Disposition::Native());
    return;
  }
  EnterSyscall(thread);
}

bool Supervisor::Observe(Thread& thread, const search::SyscallEvent& event) {
  search::EventContext context;
  context.backtrace = [&thread] {
    std::string text;
    for (const StackFrame& frame : CaptureBacktrace(thread.tid)) text += "      " + FormatFrame(frame) + "\n";
    return text;
  };
  context.symbolize = [&thread](uint64_t ip) { return FormatFrame(ProcessSymbols(thread.tid).Code(ip)); };
  context.untrappable_sites = [this, &thread] { return untrappable_sites_.Of(thread.tid); };
  if (options_.observer->Observe(event, context)) return true;
  Finish(search::Outcome::kDivergence, "it did something else than the first run");
  return false;
}

void Supervisor::Resume(Thread& thread, int signal) {
  ParkedCall& parked = thread.parked;
  if (race_sampling_) race_sampling_->BeforeResume(thread);
  // At its entry with no emulated result, the kernel runs the call.
  const bool kernel_runs_call = parked.at == ParkedCall::At::kEntry && !parked.result;
  if (parked.result) {
    CompleteSyscall(thread, *parked.result);
    parked.result.reset();
  }
  if (parked.registers_dirty) {
    ptrace::SetRegisters(thread.tid, thread.regs);
    parked.registers_dirty = false;
  }
  // If it died meanwhile, its death event follows.
  if (std::exchange(parked.to_exit, false)) {
    parked.at = ParkedCall::At::kInside;
    ptrace::ResumeToSyscallExit(thread.tid);
  } else if (kernel_runs_call && signal == 0 && options_.observer != nullptr) {
    parked.at = ParkedCall::At::kInsideObserved;
    ptrace::ResumeToSyscallExit(thread.tid);
  } else {
    parked.at = ParkedCall::At::kNone;
    // The program's own tracer may have asked for the next syscall stop or a single step.
    ResumeAsTracerAsked(thread, signal);
  }
}

void Supervisor::EnterSyscall(Thread& thread) {
  const seccomp::SyscallRow* row = seccomp::FindSyscall(thread.call.nr);
  if (row == nullptr) {
    // Not ours: a filter the program installed itself asked for a tracer with RET_TRACE.
    // Without a tracer that syscall fails with ENOSYS, so that is what the program sees (for
    // the calls chess-trace traps too, see ProgramWantsItsTracer).
    Apply(thread, Disposition::Complete(-ENOSYS));
    return;
  }
  thread.call.family = row->family;
  CheckStopDataIsFamily(thread);
  if (ProgramWantsItsTracer(thread, clocks_.Virtual() != nullptr)) {
    Apply(thread, Disposition::Complete(-ENOSYS));
    return;
  }
  if (strategy_.Taping() && !seccomp::PropertiesOf(row->family).fork_safe) execution_.prefix_forkable = false;
  SyscallContext context{thread, services_};
  Apply(thread, HandlerFor(thread.call.family).on_entry(context));
}

void Supervisor::Apply(Thread& thread, const Disposition& disposition) {
  // The call goes on or returns: anything it set up to wait for is over (held copies of its
  // descriptors closed).
  if (disposition.kind != Disposition::Kind::kBlock && disposition.kind != Disposition::Kind::kPoint) {
    ClearWait(thread);
  }
  switch (disposition.kind) {
    case Disposition::Kind::kComplete:
      thread.parked.result = disposition.value;
      Resume(thread);
      return;
    case Disposition::Kind::kNative:
      thread.parked.registers_dirty = thread.parked.registers_dirty || disposition.registers_changed;
      Resume(thread);
      return;
    case Disposition::Kind::kNativeThenExit:
      thread.parked.registers_dirty = true;
      thread.parked.to_exit = true;
      Resume(thread);
      return;
    case Disposition::Kind::kPoint:
      if (disposition.op == search::OpKind::kSyncOp) execution_.images.SyncOp(thread.process->image);
      thread.parked.at = ParkedCall::At::kOperationPending;
      thread.state = ThreadState::kReady;
      thread.point = {thread.id, disposition.op, disposition.resource, disposition.is_write,
                      disposition.is_release};
      Park(thread, search::StopReason::kReachedPoint);
      return;
    case Disposition::Kind::kBlock:
      // The result is written when it is known, together with the skip: one SETREGS.
      thread.state = ThreadState::kBlocked;
      thread.point = {thread.id, search::OpKind::kSyscall};
      Park(thread, search::StopReason::kBlocked);
      return;
    case Disposition::Kind::kYield:
      if (!disposition.native) thread.parked.result = disposition.value;
      thread.state = ThreadState::kReady;
      thread.point = {thread.id, search::OpKind::kYield};
      Park(thread, search::StopReason::kYielded);
      return;
  }
}

void Supervisor::OnInterruptStop(Thread& thread) {
  if (thread.traced && TraceInterruptTrap(thread)) return;
  if (thread.state == ThreadState::kStopped) {
    OnContinued(thread);  // a SIGCONT ended its group-stop
    return;
  }
  if (&thread != running_) return;  // a stale interrupt of a parked thread: it stays parked
  execution_.prefix_forkable = false;  // where the thread was interrupted depends on timing
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return;
  // An interrupt requested for an earlier turn of the thread can surface right after it is
  // resumed again; unless it caught the thread asleep in the kernel, it is no preemption.
  if (!execution_.slice.InterruptAskedIn(execution_.dispatches) && !regs.InInterruptedSyscall()) {
    ptrace::Resume(thread.tid);
    return;
  }
  thread.parked.at = ParkedCall::At::kNone;
  if (regs.InInterruptedSyscall()) {
    // Asleep in the kernel in a syscall the supervisor does not model (a read from a terminal,
    // a pipe fed from outside…). It restarts transparently when resumed. It waited in real
    // time, and so did the program's clock.
    AdvanceTime(log_->OutsideWait(execution_.points, clocks_.WallNow() - execution_.slice.SwitchedInAt()));
    thread.point = {thread.id, search::OpKind::kInterrupted};
    thread.call.nr = regs.SyscallNr();
    for (int i = 0; i < 6; ++i) thread.call.args[i] = regs.Arg(i);
    // It sleeps on in its call, disabled, until the kernel wakes it (kernel_sleep.cc); or, when
    // it cannot, restarts its call when picked again.
    if (!SleepInKernel(thread)) thread.state = ThreadState::kExternal;
    Park(thread, search::StopReason::kBlocked);
    return;
  }
  // A backstop interrupt: the thread computed for a whole slice. Its registers but the
  // instruction pointer say where: a thread spinning on memory is found in the same spot each
  // time (the good-Samaritan check), a computation is not.
  AdvanceTime(ComputedSlice());
  thread.state = ThreadState::kReady;
  user_regs_struct spot = regs.raw();
  spot.rip = 0;
  thread.point = {thread.id, search::OpKind::kInterrupted, search::Fnv1a64(&spot, sizeof(spot))};
  Park(thread, search::StopReason::kYielded);
}

void Supervisor::OnSyscallExitStop(Thread& thread) {
  CHESS_CHECK(&thread == running_, "syscall-exit stop of a thread that was not running");
  if (!ptrace::GetRegisters(thread.tid, thread.regs)) return;  // killed meanwhile: death follows
  last_progress_ = clocks_.EventTime();
  if (thread.parked.at == ParkedCall::At::kInsideObserved) {
    thread.parked.at = ParkedCall::At::kExit;
    if (!Observe(thread, ExitEvent(thread))) return;
    Resume(thread);
    return;
  }
  thread.parked.at = ParkedCall::At::kExit;
  SyscallContext context{thread, services_};
  const FamilyHandler handler = HandlerFor(thread.call.family);
  CHESS_CHECK(handler.on_exit != nullptr, "a syscall-exit stop for a family without on_exit");
  const ExitAnswer answer = handler.on_exit(context);
  switch (answer.kind) {
    case ExitAnswer::Kind::kComplete:
      thread.parked.result = answer.value;
      break;
    case ExitAnswer::Kind::kNative:
      thread.parked.registers_dirty = answer.registers_changed;
      break;
    case ExitAnswer::Kind::kStayInside:
      // Its rewound registers are stored when it resumes.
      thread.parked.registers_dirty = true;
      thread.state = ThreadState::kBlocked;
      thread.point = {thread.id, search::OpKind::kIo};
      Park(thread, search::StopReason::kBlocked);
      return;
  }
  Resume(thread);
}

void Supervisor::OnSignalStop(Thread& thread, int signal) {
  if (signal == SIGSEGV && &thread == running_ && EmulateTimestampCounter(thread)) return;
  if (signal == SIGTRAP && &thread == running_ &&
      (OnWatchpoint(thread) || OnBreakpoint(thread) || OnHypercallTrap(thread) || OnDisarmedWatchpoint(thread))) {
    return;
  }
  if (signal == SIGSYS && &thread == running_) {
    // Its filter's RET_TRAP for a call chess-trace made it make?
    if (auto why = InterferenceTrapped(thread, clocks_.Virtual() != nullptr)) {
      Finish(search::Outcome::kError, *why);
      return;
    }
  }
  execution_.prefix_forkable = false;  // a copy of the process would not get it
  LeaveOutOfLineCopy(thread);
  if (signal == SIGCHLD) ShowTracerNotice(thread);
  // The program's own tracer decides what becomes of the signal.
  if (thread.traced && !thread.traced->Stopped() && StopForTracer(thread, {.signal = signal})) return;
  if (&thread == running_ && thread.process->tgid == root_pid_ && EndsProcess(thread.tid, signal)) {
    // The root is about to die of it: every thread's stack now, for the report — the one that
    // got the signal stopped where it did.
    execution_.crash_threads = BuildThreadReports(threads_, futexes_);
    for (ThreadReport& report : execution_.crash_threads) {
      if (report.host_tid != thread.tid) continue;
      report.state = std::string("got SIG") + sigabbrev_np(signal);
      report.syscall.clear();
      report.call.clear();
      report.resource.clear();
    }
    if (options_.stop_at_failure) {
      running_ = nullptr;
      HandOver(std::string("at the fatal SIG") + sigabbrev_np(signal) + " of thread " + std::to_string(thread.id.value));
      return;
    }
  }
  if (&thread == running_ && ReleaseFaultingInit(thread, signal)) return;
  if (&thread == running_ && !thread.process->posix_timers.empty()) TimerSignalDelivered(thread);
  // Its handler runs under its sa_mask: SIGSEGV's blocked bit follows (timestamp_counter.cc).
  thread.forced_signal.Delivered(signal);
  // Delivered when the thread next runs, as the kernel would have done had it not stopped.
  if (&thread == running_) {
    ptrace::Resume(thread.tid, signal);
  } else {
    thread.pending_signal = signal;
  }
}

void Supervisor::Wake(Thread& thread, int64_t result) {
  ClearWait(thread);
  if (thread.state != ThreadState::kBlocked) return;
  thread.state = ThreadState::kReady;
  thread.parked.result = result;
}

void Supervisor::Notice(const std::string& text) {
  if (!execution_.notices.insert(text).second) return;
  if (options_.notice) options_.notice(text);
}

}  // namespace chess::supervisor
