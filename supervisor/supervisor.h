// Supervisor: runs one execution of a program with every thread of its tree serialized — exactly
// one thread runs at a time — and every scheduling decision taken by a search::Strategy.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/strategy.h"
#include "search/strategy_tape.h"
#include "supervisor/atomic_points.h"
#include "supervisor/race_sampling.h"
#include "supervisor/clock.h"
#include "supervisor/execution_result.h"
#include "supervisor/execution_state.h"
#include "supervisor/fd_probe.h"
#include "supervisor/handlers/futex_table.h"
#include "supervisor/instruction_scan.h"
#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/lock_requests.h"
#include "supervisor/report/sync_object_names.h"
#include "supervisor/signal_scan.h"
#include "supervisor/supervisor_options.h"
#include "supervisor/supervisor_services.h"
#include "supervisor/thread_table.h"
#include "supervisor/virtual_timers.h"
#include "supervisor/waiter_scan.h"
#include "supervisor/world/fork_server.h"
#include "supervisor/world/isolation.h"
#include "supervisor/world/launcher.h"

namespace chess::supervisor {

class Supervisor final {
 public:
  Supervisor(SupervisorOptions options, search::Strategy& strategy);
  ExecutionResult Run(const LaunchSpec& spec);
  // Which namespaces the last run had (after Run): the --isolate word the tree really got
  // (CLONE_NEW* flags, kPrivateTmp).
  uint64_t IsolatedNamespaces() const {
    return isolated_ | (init_->PrivateTmp() ? kPrivateTmp : 0) | (init_->PrivateCwd() ? kPrivateCwd : 0);
  }

 private:
  friend class SupervisorServices;
  // What handlers ask for and the event loop uses too (SupervisorServices forwards to them).
  void Wake(Thread& thread, int64_t result);
  void Notice(const std::string& text);
  void AdvanceTime(int64_t nanos);
  // The virtual time a turn of computing stands for: a slice, but no further than the earliest
  // deadline, which then comes exactly on time.
  int64_t ComputedSlice() const;
  bool SignalActsAtOnce(pid_t pid, bool thread, int signal, const Process& sender);
  void SettleSignalled(pid_t pid, bool thread, int signal, const Process& sender);
  void FilterInstalled(Thread& thread, std::vector<sock_filter> program, bool all_threads);

  // Signals for parked threads (signals.cc): those the SignalScan finds taking one leave their
  // emulated wait (`from_tick`: see SignalScan::FindTakers).
  bool ReleaseThreadsWithPendingSignals(bool from_tick = false);
  // A parked thread leaves its emulated wait and runs its real syscall.
  void ReleaseToKernel(Thread& thread);
  // Forgets everything the thread waited for.
  void ClearWait(Thread& thread);

  // The run's set-up and events (supervisor.cc).
  // Creates the namespaces, when asked for and not there from an earlier execution (a failure
  // is an error only if they were required).
  Result<void> Isolate(const LaunchSpec& spec);
  // Enters the root's SysV IPC namespace, so that the supervisor sees the tree's objects.
  void EnterIpcNamespace();
  void HandleEvent(const ptrace::WaitEvent& event);
  void OnTick();
  // A fast tick while another thread could run (the watchdog and the slice need it), a slow one
  // otherwise: a tick interrupts the supervisor, which shares the CPU with the program.
  void AdjustTick(bool others_runnable);
  std::vector<ThreadReport> SnapshotThreads();
  void OnSeccompStop(Thread& thread);
  // A trapped syscall, or a hypercall trap, whose call is in thread.call: the same from here on.
  void OnTrappedCall(Thread& thread);
  // The thread arrives at its trapped syscall, which no handler has looked at: where the
  // schedule may stop it before the call (a replayed interrupt, a fairness yield).
  void ArriveAtSyscall(Thread& thread);
  void OnInterruptStop(Thread& thread);
  void OnSyscallExitStop(Thread& thread);
  // The handler of the thread's trapped syscall decides what happens (also later: a call put
  // off by the syscall budget).
  void EnterSyscall(Thread& thread);
  // The thread yields at its trapped syscall before the call is looked at (a fairness yield, a
  // replayed interrupt), as a point of kind `why`.
  void PutOffSyscall(Thread& thread, search::OpKind why);
  // The trapped syscall goes on: run again by the kernel (native_once), or to its handler.
  void TakeUpSyscall(Thread& thread);
  // Stops every thread of the tree where it is, detaches it, and hands it over (on_handover);
  // the execution then ends (handover.cc).
  void HandOver(const std::string& where);
  // The observer's view of the thread's syscall; false when it ended the execution.
  bool Observe(Thread& thread, const search::SyscallEvent& event);
  // Lets a thread stopped at its call go, as its ParkedCall says: stores the emulated result
  // and edited registers, and resumes it to the call's exit when its handler or an observer
  // wants to see that (with `signal` delivered otherwise). The one way out of a call's stop.
  void Resume(Thread& thread, int signal = 0);
  // rdtsc or rdtscp faulted (PR_TSC_SIGSEGV): answer from the virtual clock (timestamp_counter.cc).
  bool EmulateTimestampCounter(Thread& thread);
  // Puts back what the kernel's forcing of `signal` (SIGSEGV, SIGTRAP) took for one of
  // chess-trace's traps, at the trap's stop with registers `at_trap` (forced_signal_undo.cc):
  // the thread may be left at an injected call's exit stop, to be resumed with its registers set.
  void UndoForcedSignal(Thread& thread, const Registers& at_trap, int signal);

  // Atomic points (atomic_points.h). A SIGTRAP of the running thread at one of the breakpoints:
  // it runs the instruction, or parks before it as a scheduling point (false: not ours).
  bool OnBreakpoint(Thread& thread);
  // A SIGTRAP from an int3 retired after the thread ran it (BreakpointTable::RemovedAtTrap): the
  // thread goes back to the instruction. False when the trap is not such a one.
  bool OnRemovedBreakpoint(Thread& thread, Registers& regs, const BreakpointTable& breakpoints);
  // A SIGTRAP of the running thread that a race watchpoint made: the access judged, the thread
  // let go. False when no watchpoint fired.
  bool OnWatchpoint(Thread& thread);
  // A SIGTRAP of a watchpoint the thread no longer has (RaceSampling::OnDisarmedTrap): taken
  // quietly. Asked last, when nothing else claims the trap.
  bool OnDisarmedWatchpoint(Thread& thread);
  // The learning execution's race detection reached its plan's max_race_orderings: it stops.
  void StopRaceDetection();
  // [begin, end) became executable in the thread's process: its breakpoints are planted (true:
  // a call was injected, the thread's registers must be stored again).
  bool CodeMapped(Thread& thread, uint64_t begin, uint64_t end);
  // A new image in the thread's process, at its exec stop.
  void ImageLoaded(Thread& thread);
  // The stack of a parked thread, from where it stopped: a thread at an atomic point from its
  // instruction (the kernel has it one byte on, past the int3).
  std::vector<StackFrame> StackWhereParked(Thread& thread);
  // At a signal's delivery stop: a thread inside an out-of-line copy is moved to the program's
  // own address for it, so its handler, a core dump or a report never sees a supervisor's slot.
  void LeaveOutOfLineCopy(Thread& thread);

  // The program's own seccomp filters (sandbox.cc).
  // A SIGTRAP of the running thread that is the preload shim's hypercall trap: handled as a
  // trapped hypercall. False for any other SIGTRAP, which is the program's.
  bool OnHypercallTrap(Thread& thread);
  // Writes the preload shim's control word into the process of `reader` (through `reader`'s
  // memory access).
  void SetShimControl(const Thread& reader, uint64_t word);

  // Job control (job_control.cc): a thread enters a group-stop, and leaves it on SIGCONT.
  void OnGroupStop(Thread& thread);
  void OnContinued(Thread& thread);
  // The parent's threads in wait4/waitid that can now collect `child`'s exit or job change
  // run their call.
  void ReleaseParentWaiters(Process& child);
  void OnSignalStop(Thread& thread, int signal);
  void Apply(Thread& thread, const Disposition& disposition);

  // The program's own tracing of its threads (emulated_tracing.cc).
  // The tracee enters an emulated ptrace-stop its tracer's wait reports; false if it is gone.
  bool StopForTracer(Thread& thread, EmulatedStop stop);
  // The tracer's threads waiting in wait4/waitid look again.
  void ReleaseTracerWaiters(pid_t tracer_process);
  // The tracer (a thread, or with the leader its process) died: its tracees are killed or let go.
  void TracerGone(const Thread& tracer);
  long TraceeRequest(Thread& tracee, int64_t request, uint64_t addr, void* data);
  // Lets a stopped thread run on, as its emulated tracer asked (the next syscall stop, one step).
  void ResumeAsTracerAsked(Thread& thread, int signal = 0);
  // A traced thread finished an exec: its tracer sees the exec event or a SIGTRAP (true: the
  // thread is stopped for it).
  bool TraceExec(Thread& thread, pid_t former_program_tid);
  // A traced thread created `child` (`flags`: the clone's): with the tracer's option for it the
  // child is traced too, starting in its first stop, and the parent stops at the event (true).
  bool TraceCreation(Thread& parent, Thread& child, int event, uint64_t flags);
  // A syscall-entry or -exit stop of a tracee whose tracer asked for them (PTRACE_SYSCALL).
  void OnTracedSyscallStop(Thread& thread);
  // PTRACE_INTERRUPT of a seized tracee not in a ptrace-stop, wherever it is parked; and
  // PTRACE_LISTEN (false: EIO).
  void InterruptTracee(Thread& tracee);
  bool ListenTracee(Thread& tracee);
  // The kernel's PTRACE_EVENT_STOP trap of a traced thread, or its group-stop: its tracer's stop
  // when it asked for an interrupt or listens (true), a job-control stop of its own otherwise.
  bool TraceInterruptTrap(Thread& thread);
  bool TraceGroupStop(Thread& thread, int signal);
  // A traced vfork parent's child let go of its memory: PTRACE_EVENT_VFORK_DONE, if asked for.
  void TraceVforkDone(Thread& parent);
  // The tracer's SIGCHLD for a tracee's stop (the kernel's do_notify_parent_cldstop), and its
  // siginfo made CLD_TRAPPED when a thread of the tracer takes it.
  void NotifyTracer(const Thread& tracee, const EmulatedStop& stop);
  void ShowTracerNotice(Thread& thread);

  // Thread lifecycle (lifecycle.cc).
  void OnThreadCreated(Thread& parent, int event);
  void OnExec(Thread& thread);
  // Stubs the vDSO's clocks and seeds AT_RANDOM in a new image (virtual time, seeded randomness).
  void PatchNewImage(Thread& thread);
  void OnExitEvent(Thread& thread);
  // Handles `tid`'s events, and no one else's, until `done` holds of it or it is gone: for
  // changes the kernel makes at once but reports when it likes.
  void AwaitThread(pid_t tid, const std::function<bool(const Thread&)>& done);
  // Handles every tracee's events until `done` holds (or `tid` has reported a few).
  void AwaitEvents(pid_t tid, const std::function<bool()>& done);
  // Waits for every thread of a process that is ending to exit and die (see OnExitEvent).
  void CollectDyingProcess(Process& process);
  // Waits for the vfork parent of `child`, which just exec'd or died, to report it is awake.
  void SettleVforkParent(Process& child);
  void OnDeath(Thread& thread, const ptrace::WaitEvent& event);
  // At the signal-delivery-stop of a fault that kills a pid namespace's init: lets the init go
  // (untraced, it dies of the signal as natively) and collects its namespace's end. False when
  // the signal is not that, and takes its usual way.
  bool ReleaseFaultingInit(Thread& thread, int signal);
  void ReplayExitWakes(Thread& thread);
  void KillTree();
  // Reaps every tracee event there is now, resuming stops (KillTree's work).
  void ReapWaiting();

  // The fork server's side in the supervisor (supervisor_fork.cc).
  // Why what the program did so far would not be repeated exactly by a copy of its process made
  // now, with the supervisor's state copied (PrefixState); nullopt when it would.
  std::optional<std::string> WhyNotForkable(const Thread& thread) const;
  // At each seccomp stop while the prefix is taped: at the root's first clone, the template is
  // made if it can be, and the taping ends.
  void MakeTemplate(Thread& thread);
  PrefixState SnapshotPrefix(const Thread& thread) const;
  // Starts the execution from a process forked from the template: the supervisor's state is the
  // prefix's. False when the strategy would not have run the prefix as it was taped (the
  // execution has then ended, as a divergence).
  bool AdoptForked(const ForkServer::Forked& forked, Thread*& main_thread);

  // Kernel sleeps the scheduler accounts for (kernel_sleep.cc). A thread interrupted asleep in
  // the kernel makes its call again with its exit stop armed and sleeps there, disabled (false:
  // it cannot, and restarts its call when picked again).
  bool SleepInKernel(Thread& thread);
  // A stop of such a sleeper: true when handled here (its entry stop, its wake-up at the exit).
  bool OnKernelSleepStop(Thread& thread, const ptrace::WaitEvent& event);
  // Before a decision: each sleeper is asleep, or the stop it is on its way to has been handled.
  void SettleKernelSleeps();

  // Scheduling (scheduling.cc).
  void ScheduleNext();
  bool Dispatch(Thread& thread);
  void Park(Thread& thread, search::StopReason reason);
  void CompleteSyscall(Thread& thread, int64_t value);
  void FireDueDeadlines();
  // Threads waiting on descriptors or objects that the WaiterScan finds ready can go on: their
  // operation runs again when they are picked.
  bool ReleaseReadyWaiters();
  // Makes `thread`'s deadline come now: virtual time jumps to it.
  void FireEarly(Thread& thread);
  void Finish(search::Outcome outcome, std::string message = {});
  bool CheckHang();
  // Ends the execution as `timeout` once it has run longer than execution_timeout.
  bool CheckTimeout();
  void FinishAsHang();

  SupervisorOptions options_;
  ExecutionState execution_;
  SupervisorServices services_{*this};  // what every SyscallContext is given
  // Every call to the strategy goes through the tape, which keeps the prefix's calls for a
  // fork server's template.
  search::TapedStrategy strategy_;
  ThreadTable threads_;
  FutexTable futexes_;
  SupervisorClocks clocks_;
  search::ExecutionLog default_log_;
  search::ExecutionLog* log_ = &default_log_;
  EventWaiter waiter_;
  IsolatedInit own_init_;
  IsolatedInit* init_ = &own_init_;  // options_.shared_init when there is one
  FdProbe fd_probe_;
  VirtualTimers timers_{threads_, fd_probe_};
  int64_t outside_poll_nanos_ = 0;  // backs off while only the outside world can wake anyone
  WaiterScan waiters_{threads_, fd_probe_, services_};
  SignalScan signal_scan_{threads_};

  Thread* running_ = nullptr;      // the one thread resumed, if any
  Thread* last_ = nullptr;         // the thread that ran last (CHESS's "current")
  MonoNanos last_progress_ = 0;    // last time any thread did something visible
  std::map<pid_t, ptrace::WaitEvent> early_stops_;  // first stops seen before their CLONE event
  UntrappableSites untrappable_sites_;
  pid_t root_pid_ = 0;
  int isolated_ = 0;
  bool ipc_visible_ = true;
  std::optional<ExecutionResult> result_;
  MonoNanos started_ = 0;
  SyncObjectNames sync_object_names_;
  // What threads stopped at a lock's announcement ask for, read only when a strategy asks.
  TreeLockRequests lock_requests_{threads_};
  code::CodeCache own_code_cache_;  // when the options give none
  std::optional<AtomicPoints> atomic_points_;
  // A learning execution that looks for races (AtomicPointPlan::detect_races).
  std::optional<RaceSampling> race_sampling_;
};

}  // namespace chess::supervisor
