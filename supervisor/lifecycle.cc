// Thread and process lifecycle events: creation, exec, exit and death, and the exit-time futex
// writes whose wakes the kernel sends to waiters that, under emulation, do not exist.
#include <linux/futex.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include <cerrno>

#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "supervisor/exec_image.h"
#include "supervisor/handlers/futex_key.h"
#include "supervisor/handlers/pending_signals.h"
#include "supervisor/invariant.h"
#include "supervisor/sandbox.h"
#include "supervisor/supervisor.h"
#include "supervisor/handlers/transfer.h"

namespace chess::supervisor {
namespace {

// The kernel walks at most this many robust-list entries (ROBUST_LIST_LIMIT).
constexpr int kRobustListLimit = 2048;

// struct robust_list_head, x86_64.
struct RobustListHead {
  uint64_t next;
  int64_t futex_offset;
  uint64_t list_op_pending;
};

std::vector<uint64_t> ReadRobustFutexes(pid_t tid, uint64_t head_address) {
  std::vector<uint64_t> futexes;
  RemoteMemory memory(tid);
  auto head = memory.Read<RobustListHead>(head_address);
  if (!head) return futexes;
  uint64_t entry = head->next;
  for (int i = 0; i < kRobustListLimit && entry != head_address && entry != 0; ++i) {
    const uint64_t node = entry & ~1ull;  // bit 0 marks a PI futex
    futexes.push_back(node + head->futex_offset);
    auto next = memory.Read<uint64_t>(node);
    if (!next) break;
    entry = *next;
  }
  if (head->list_op_pending != 0) futexes.push_back((head->list_op_pending & ~1ull) + head->futex_offset);
  return futexes;
}

// A leader that exits while its threads live becomes a zombie the kernel will not report
// until the whole group is gone.
bool IsZombie(pid_t tgid) {
  const std::optional<char> state = KernelState(tgid);
  return !state || *state == 'Z' || *state == 'X';
}

}  // namespace

void Supervisor::OnThreadCreated(Thread& parent, int event) {
  const auto child_tid = ptrace::EventMessage(parent.tid);
  if (!child_tid) return;
  const auto tid = static_cast<pid_t>(*child_tid);
  // Wait for the child's first stop now, so the set of runnable threads never depends on when
  // the kernel gets round to reporting it.
  if (auto early = early_stops_.find(tid); early != early_stops_.end()) {
    early_stops_.erase(early);
  } else {
    auto first = ptrace::WaitFor(tid);
    if (!first || first->kind == ptrace::StopKind::kExited ||
        first->kind == ptrace::StopKind::kKilled) {
      ptrace::Resume(parent.tid);
      return;
    }
  }
  const uint64_t flags = event == PTRACE_EVENT_CLONE ? parent.clone_flags
                         : event == PTRACE_EVENT_VFORK ? (CLONE_VM | CLONE_VFORK)
                                                       : 0;
  Process* process = parent.process;
  if ((flags & CLONE_THREAD) == 0) {
    const uint64_t space = (flags & CLONE_VM) ? parent.process->address_space : threads_.NewAddressSpace();
    process = &threads_.AddProcess(tid, space);
    process->parent = (flags & CLONE_PARENT) ? parent.process->parent : parent.process->tgid;
    process->image = parent.process->image;  // the same program until it execs
    process->focused = parent.process->focused;
    process->shim_control = parent.process->shim_control;  // in its copy of the memory (or the same)
    // A copy of the memory holds copies of the breakpoints and their pages.
    if (space != parent.process->address_space) AtomicPoints::Forked(execution_.atomics, parent.process->address_space, space);
  } else {
    execution_.images.SecondThread(process->image);
  }
  Thread& child = threads_.AddThread(tid, *process);
  if (race_sampling_) race_sampling_->ThreadCreated(parent.id, child.id);
  child.filters = parent.filters;  // the kernel gives a new task its creator's seccomp filters
  // …its signal mask and rdtsc mode, and its process's signal actions (a copy in a new process).
  child.forced_signal = process == parent.process ? parent.forced_signal.ForNewThread() : parent.forced_signal.ForNewProcess();
  child.state = ThreadState::kReady;
  child.point = {child.id, search::OpKind::kThreadStart};
  log_->ThreadStarted(child.id, process->program_pid, child.program_tid);
  child.clear_child_tid = parent.clone_child_tid;
  child.affinity = parent.affinity;
  parent.clone_child_tid = 0;
  last_progress_ = clocks_.WallNow();

  const bool stopped_for_tracer = parent.traced && TraceCreation(parent, child, event, flags);
  if (event == PTRACE_EVENT_VFORK) {
    process->vfork_parent = parent.tid;
    // Stopped for its tracer at the vfork event, it goes to sleep once let go (Dispatch).
    if (stopped_for_tracer) return;
    // The parent sleeps in the kernel until the child execs or exits, then reports
    // PTRACE_EVENT_VFORK_DONE; meanwhile it is blocked like any waiter.
    parent.in_vfork = true;
    parent.state = ThreadState::kBlocked;
    ptrace::Resume(parent.tid);
    running_ = nullptr;
    last_ = &parent;
    execution_.last_stop = search::StopReason::kBlocked;
    return;
  }
  AdjustTick(true);  // the child is ready while its parent runs
  if (!stopped_for_tracer) ResumeAsTracerAsked(parent);
}

void Supervisor::OnExec(Thread& thread) {
  // After an exec by a non-leader thread the kernel reports the event under the leader's tid;
  // the event message names the thread that really called execve.
  Thread* execer = &thread;
  pid_t former_program_tid = thread.program_tid;
  if (auto former = ptrace::EventMessage(thread.tid); former && static_cast<pid_t>(*former) != thread.tid) {
    if (Thread* found = threads_.Find(static_cast<pid_t>(*former))) {
      execer = found;
      former_program_tid = found->program_tid;
    }
  }
  const pid_t leader = thread.tid;
  for (const auto& [id, other] : threads_.Live()) {
    if (other != execer && other->process == execer->process) futexes_.Remove(other->tid);
  }
  if (execer != &thread) {
    threads_.RenameAfterExec(*execer, leader);
  }
  for (auto it = threads_.Live().begin(); it != threads_.Live().end();) {
    Thread* other = it->second;
    ++it;
    if (other != execer && other->process == execer->process) threads_.MarkDead(*other);
  }
  // The exec killed the other threads (their PTRACE_EVENT_EXIT marked the process as dying),
  // but the process lives on in its new image.
  execer->process->dying = false;
  execer->process->address_space = threads_.NewAddressSpace();
  execution_.images.Replaced(execer->process->image);
  execer->process->image = execution_.images.Exec(execer->tid);
  if (!options_.focus.empty()) {
    execer->process->focused = execution_.images.Matches(execer->process->image, ProcessComm(execer->tid), options_.focus);
  }
  execer->clear_child_tid = 0;  // exec releases both registrations (exec_mm_release)
  execer->process->posix_timers.clear();  // exec deletes POSIX timers; alarm and timerfds stay
  execer->robust_list = 0;
  execer->shim_state = 0;  // a new image: its shim registers again
  execer->announced_op = 0;
  execer->announced_object = 0;
  execer->process->shim_control = 0;  // …and finds a new control word (PatchNewImage)
  // A handler does not survive the exec, the mask does: read here, for the first image too.
  execer->forced_signal.Exec(ptrace::GetSignalMask(execer->tid));
  execer->state = ThreadState::kRunning;
  running_ = execer;
  last_progress_ = clocks_.WallNow();
  PatchNewImage(*execer);
  ImageLoaded(*execer);
  if (!execer->traced || !TraceExec(*execer, former_program_tid)) ResumeAsTracerAsked(*execer);
  SettleVforkParent(*execer->process);
}

void Supervisor::SettleVforkParent(Process& child) {
  // The kernel woke the parent when the child's memory was released (exec, exit): its
  // VFORK_DONE is collected now, so that it can be picked at the very next decision whatever
  // the kernel's timing.
  const pid_t parent = std::exchange(child.vfork_parent, 0);
  if (parent == 0) return;
  if (race_sampling_) {
    // What the child did in the parent's memory comes before the parent goes on.
    const Thread* waiter = threads_.Find(parent);
    const Thread* released = threads_.Find(child.tgid);
    if (waiter != nullptr && released != nullptr) race_sampling_->Joined(waiter->id, released->id);
  }
  AwaitThread(parent, [](const Thread& t) { return !t.in_vfork; });
}

void Supervisor::PatchNewImage(Thread& thread) {
  ImagePatch patch;
  patch.stub_vdso = clocks_.Virtual() != nullptr;
  if (execution_.random) {
    patch.random.emplace();
    execution_.random->Fill(patch.random->data(), patch.random->size());
  }
  // The seccomp filters survive the exec: under one, the new image's shim announces by trap.
  if (options_.preload_shim) patch.shim_control = ShimControlFor(!thread.filters.Empty());
  if (!patch.stub_vdso && !patch.random && !patch.shim_control) return;
  Registers regs;
  std::optional<PatchedImage> patched;
  if (ptrace::GetRegisters(thread.tid, regs)) patched = PatchAuxiliaryVector(thread.tid, regs.Sp(), patch);
  if (patched && patched->stack_pointer != regs.Sp()) {
    regs.raw().rsp = patched->stack_pointer;
    if (!ptrace::SetRegisters(thread.tid, regs)) patched.reset();
  }
  if (!patched) {
    Notice("could not patch the auxiliary vector of a new program image: its clock reads or its "
           "stack canary may not be deterministic, and its sync operations are not scheduling points");
    return;
  }
  thread.process->shim_control = patched->shim_control;
}

void Supervisor::OnExitEvent(Thread& thread) {
  // The program's own tracer asked to see the exit (PTRACE_O_TRACEEXIT): the exit goes on from
  // here when it lets the tracee go (Dispatch).
  if (&thread == running_ && thread.traced && thread.traced->Wants(ptrace_abi::kEventExit) &&
      !thread.traced->ExitStopped() &&
      StopForTracer(thread, {.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = ptrace_abi::kEventExit,
                             .message = ptrace::EventMessage(thread.tid).value_or(0)})) {
    // Its exit_group marked the process dying; it is not until the tracee goes on, which it
    // must be picked for.
    thread.process->dying = false;
    return;
  }
  // Killed by the program's own seccomp filter for a call chess-trace made it make?
  if (&thread == running_) {
    if (auto why = InterferenceKilled(thread, clocks_.Virtual() != nullptr)) Finish(search::Outcome::kError, *why);
  }
  // The mm is still attached here: read the robust list before the kernel walks it.
  if (thread.robust_list != 0) thread.robust_futexes = ReadRobustFutexes(thread.tid, thread.robust_list);
  const bool group_exit = !thread.called_exit || thread.call.nr == SYS_exit_group;
  if (group_exit) thread.process->dying = true;
  ClearWait(thread);
  DropTransfer(thread);
  const bool was_running = running_ == &thread;
  thread.state = ThreadState::kExiting;
  if (was_running) {
    running_ = nullptr;
    last_ = &thread;
    execution_.last_stop = search::StopReason::kExited;
  }
  ptrace::Resume(thread.tid);
  if (group_exit) {
    // The running thread ended its process (exit_group, a fatal signal): the whole process is
    // collected now, before any other decision, so that when its parent looks — and whether it
    // still has threads, or is a zombie to reap — never depends on when the kernel reports it.
    // (The other threads of an exec from a non-leader thread die too, but the process lives on.)
    const bool execing = running_ != nullptr && running_->process == thread.process &&
                         (running_->call.nr == SYS_execve || running_->call.nr == SYS_execveat);
    if (was_running && !execing) CollectDyingProcess(*thread.process);
    return;
  }

  const bool is_leader = thread.tid == thread.process->tgid;
  bool siblings_alive = false;
  for (const auto& [id, other] : threads_.Live()) {
    siblings_alive = siblings_alive || (other != &thread && other->process == thread.process);
  }
  if (is_leader && siblings_alive) {
    // The leader will not be reaped until its group is gone: wait until it is a zombie, which
    // is when the kernel has cleared its clear-child-tid word.
    for (int i = 0; i < 10000 && !IsZombie(thread.tid); ++i) std::this_thread::yield();
    ReplayExitWakes(thread);
    threads_.MarkDead(thread);
    return;
  }
  // Wait for the death now: the kernel clears the clear-child-tid word before reporting it, and
  // joiners must become runnable before the next decision.
  AwaitThread(thread.tid, [](const Thread&) { return false; });
}

void Supervisor::AwaitThread(pid_t tid, const std::function<bool(const Thread&)>& done) {
  AwaitEvents(tid, [this, tid, &done] {
    const Thread* thread = threads_.Find(tid);
    return thread == nullptr || thread->state == ThreadState::kDead || done(*thread);
  });
}

void Supervisor::AwaitEvents(pid_t tid, const std::function<bool()>& done) {
  // Every tracee's events are handled as they come, not only tid's: the kernel may hold tid's
  // back until others are collected — a pid namespace's init that exits reports its death only
  // once every task its exit killed in its namespace is reaped (zap_pid_ns_processes), and
  // those are ours to reap. Nothing else runs meanwhile (one thread at a time), so what comes
  // is what the main loop would handle the same way: deaths, exit stops, first stops — but
  // for the running thread's next stop (an exec's caller, resumed as its vfork parent is
  // awaited), which goes back to the main loop.
  // Bounded: a thread reports only a few events (a signal stop, an exit) before any of these;
  // and a request to stop chess-trace ends the wait (WaitFor).
  for (int events = 0; events < 16 && !done();) {
    auto event = ptrace::WaitFor(-1, done);  // `done` is asked again at each tick
    if (!event) return;  // done, nothing traced is left, or chess-trace is asked to stop
    if (event->tid == tid) ++events;
    const bool running_stopped = running_ != nullptr && event->tid == running_->tid && event->tid != tid &&
                                 event->kind != ptrace::StopKind::kExited && event->kind != ptrace::StopKind::kKilled;
    if (running_stopped) {
      waiter_.PutBack(*event);
      continue;
    }
    HandleEvent(*event);
  }
}

void Supervisor::CollectDyingProcess(Process& process) {
  // Each thread leaves its stop for the kernel's SIGKILL and reports PTRACE_EVENT_EXIT, then its
  // death; the leader's death comes last, when the group is empty.
  std::vector<pid_t> members;
  for (const auto& [id, other] : threads_.Live()) {
    if (other->process == &process && other->tid != process.tgid) members.push_back(other->tid);
  }
  members.push_back(process.tgid);
  for (pid_t tid : members) {
    AwaitThread(tid, [](const Thread& t) { return t.state == ThreadState::kExiting; });
  }
  for (pid_t tid : members) AwaitThread(tid, [](const Thread&) { return false; });  // until dead
  // A leader that exited before its threads is dead to the table already; the process ends
  // when its death is reported, after theirs.
  AwaitEvents(process.tgid, [&process] { return process.exit_code || process.exit_signal; });
}

bool Supervisor::ReleaseFaultingInit(Thread& thread, int signal) {
  // A pid namespace's init is immune to the signals of its own namespace (SIGNAL_UNKILLABLE).
  // The kernel lifts that for a fatal signal it forces on it (a fault), but only when the init
  // is not traced: re-injected by its tracer, the signal is dropped, and the init would fault
  // again forever. Untraced, it faults again where it was and dies of it, and its parent's wait
  // and SIGCHLD see the original signal and core bit (a SIGKILL from here would show signal 9).
  // Only a fault comes back by itself; any other forced signal is re-injected as usual.
  siginfo_t info{};
  if (!ptrace::GetSignalInfo(thread.tid, info) || !RecursAsFault(signal, info.si_code) ||
      !EndsProcess(thread.tid, signal) || !IsPidNamespaceInit(thread.process->tgid)) {
    return false;
  }
  Process& process = *thread.process;
  process.dying = true;
  ClearWait(thread);
  DropTransfer(thread);
  thread.state = ThreadState::kExiting;
  if (running_ == &thread) {
    running_ = nullptr;
    last_ = &thread;
    execution_.last_stop = search::StopReason::kExited;
  }
  execution_.prefix_forkable = false;
  ptrace::Detach(thread.tid, signal);
  // Its exit and death are no longer ours to see. Its exit kills every task of its namespace
  // and waits until they are reaped — by chess-trace, their tracer — so their events are served
  // until it is a zombie and its process has no traced thread left. Bounded: the fault recurs
  // at once; if it did not, the init is killed rather than left to run untraced.
  const pid_t tid = thread.tid;
  const MonoNanos give_up = clocks_.WallNow() + 5 * kNanosPerSecond;
  auto ended = [this, tid, &process, give_up] {
    for (const auto& [id, other] : threads_.Live()) {
      if (other->process == &process && other->tid != tid) return false;
    }
    const std::optional<char> state = KernelState(tid);
    return !state || *state == 'Z' || *state == 'X' || clocks_.WallNow() > give_up;
  };
  AwaitEvents(tid, ended);
  if (const std::optional<char> state = KernelState(tid); state && *state != 'Z' && *state != 'X') {
    kill(tid, SIGKILL);  // from an ancestor namespace: it cannot refuse it
  }
  threads_.MarkDead(thread);
  if (tid != process.tgid) {
    // The leader is still traced: the process ends when its death is reported.
    threads_.Forget(tid);
    CollectDyingProcess(process);
    return true;
  }
  ptrace::WaitEvent death;
  death.tid = tid;
  death.kind = ptrace::StopKind::kKilled;
  death.value = signal;
  OnDeath(thread, death);
  return true;
}

void Supervisor::OnDeath(Thread& thread, const ptrace::WaitEvent& event) {
  Process& process = *thread.process;
  if (thread.state != ThreadState::kDead) {
    ClearWait(thread);
    DropTransfer(thread);
    ReplayExitWakes(thread);
    threads_.MarkDead(thread);
  }
  if (running_ == &thread) {
    running_ = nullptr;
    last_ = &thread;
    execution_.last_stop = search::StopReason::kExited;
  }
  last_progress_ = clocks_.WallNow();
  TracerGone(thread);
  if (thread.traced && (thread.tid != process.tgid || thread.traced->TracerProcess() != process.parent)) {
    thread.traced->Died(event.status);
    ReleaseTracerWaiters(thread.traced->TracerProcess());
  }
  if (thread.tid != process.tgid) {
    threads_.Forget(thread.tid);
    return;
  }
  // The leader's reaping is the process's exit.
  if (event.kind == ptrace::StopKind::kExited) {
    process.exit_code = event.value;
  } else {
    process.exit_signal = event.value;
  }
  for (const auto& [id, other] : threads_.Live()) {
    CHESS_CHECK(other->process != &process || other->state == ThreadState::kExiting,
                "a process was reaped while one of its threads was alive");
  }
  threads_.Forget(thread.tid);
  fd_probe_.Forget(process.tgid);
  SettleVforkParent(process);
  if (process.parent != 0) signal_scan_.MayHaveSignal(process.parent);  // SIGCHLD
  // Its parent's threads waiting in wait4/waitid can now collect it: the kernel runs their call.
  ReleaseParentWaiters(process);
  if (process.tgid != root_pid_) return;
  if (process.exit_signal) {
    Finish(search::Outcome::kSignal);
    result_->signal = *process.exit_signal;
    result_->threads = std::move(execution_.crash_threads);  // as they were when the signal came
  } else {
    Finish(*process.exit_code == 0 ? search::Outcome::kOk : search::Outcome::kExitStatus);
    result_->exit_status = *process.exit_code;
  }
}

void Supervisor::ReplayExitWakes(Thread& thread) {
  // Futex keys of shared memory are found through a live thread's maps.
  const Thread* reader = &thread;
  for (const auto& [id, other] : threads_.Live()) {
    if (other->process == thread.process && other != &thread && other->Alive()) {
      reader = other;
      break;
    }
  }
  if (thread.clear_child_tid != 0) {
    // mm_release: the kernel zeroes the word and wakes one waiter with a shared-key wake.
    const FutexKey key = MakeFutexKey(*reader, thread.clear_child_tid, true);
    for (const FutexWaiter& waiter : futexes_.Wake(key, 1)) {
      if (Thread* joiner = threads_.Find(waiter.tid)) Wake(*joiner, 0);
    }
    thread.clear_child_tid = 0;
  }
  // Robust futexes: the kernel marked each lock the thread held FUTEX_OWNER_DIED and woke one
  // waiter (PI locks are handed to their first waiter instead).
  RemoteMemory memory(reader->tid);
  for (uint64_t address : thread.robust_futexes) {
    auto word = memory.Read<uint32_t>(address);
    if (!word || (*word & FUTEX_OWNER_DIED) == 0) continue;
    const FutexKey key = MakeFutexKey(*reader, address, true);
    auto first = futexes_.Front(key);
    if (!first) continue;
    Thread* heir = threads_.Find(first->tid);
    if (heir == nullptr) continue;
    if (first->pi && (*word & FUTEX_TID_MASK) == 0) {
      futexes_.Wake(key, 1);
      const uint32_t handed = static_cast<uint32_t>(heir->program_tid) | FUTEX_OWNER_DIED |
                              (futexes_.Waiters(key) > 0 ? FUTEX_WAITERS : 0);
      memory.Write(address, handed);
      Wake(*heir, 0);
    } else if (!first->pi && (*word & FUTEX_WAITERS) != 0) {
      futexes_.Wake(key, 1);
      Wake(*heir, 0);
    }
  }
  thread.robust_futexes.clear();
}

void Supervisor::ReapWaiting() {
  while (auto event = ptrace::PollAny()) {
    if (event->kind != ptrace::StopKind::kExited && event->kind != ptrace::StopKind::kKilled) {
      ptrace::Resume(event->tid);
    }
  }
}

void Supervisor::KillTree() {
  const bool keep_init = init_->Reusable();
  // Before the init goes (and with it, without a descriptor, its mount namespace).
  const bool inspect = options_.inspect_world && result_;
  std::shared_ptr<const KeptMountNamespace> mount_namespace;
  if (inspect && init_->Started()) mount_namespace = KeptMountNamespace::Open(init_->InitPid());
  if (!keep_init) init_->Stop();  // the init of the tree's namespaces, and with it everything in them
  std::set<pid_t> unreaped;
  for (const auto& [tgid, process] : threads_.Processes()) {
    if (!process->exit_code && !process->exit_signal) {
      kill(tgid, SIGKILL);
      unreaped.insert(tgid);
    }
  }
  // A thread already in its exit stop ignores SIGKILL (its process is dying): only its tracer
  // lets it go on. Its report may have been taken and not answered (the stop request came
  // first), so every thread is continued; for one not stopped, that fails and changes nothing.
  for (const auto& [id, thread] : threads_.Live()) ptrace::Resume(thread->tid);
  // Reap everything so no zombie outlives chess-trace; killed tracees may still report a
  // PTRACE_EVENT_EXIT stop first, which must be continued. Bounded: EXITKILL covers the rest.
  MonoNanos give_up = clocks_.WallNow() + 5 * kNanosPerSecond;
  if (keep_init) {
    // The init stays, so waitpid never says there is nothing left: wait for the processes
    // known to be alive (a blocking wait, which the tick interrupts), then have the init kill
    // and wait out whatever else is in its namespace (a child forked as its parent was killed).
    // A tree handed over for inspection is no longer traced: the init reaps it.
    if (result_ && result_->handed_over) unreaped.clear();
    while (!unreaped.empty() && clocks_.WallNow() < give_up) {
      errno = 0;
      auto event = ptrace::WaitAny();
      if (!event) {
        if (errno == ECHILD) break;
        continue;
      }
      if (event->kind == ptrace::StopKind::kExited || event->kind == ptrace::StopKind::kKilled) {
        unreaped.erase(event->tid);
      } else {
        ptrace::Resume(event->tid);
      }
    }
    // The tree is gone and the world is as it left it, until the init makes it ready again.
    if (inspect) options_.inspect_world(*result_, mount_namespace.get());
    if (init_->EmptyNamespace([this] { ReapWaiting(); })) return;
    init_->Stop();  // it could not: these namespaces go, and the next execution gets new ones
    give_up = clocks_.WallNow() + 5 * kNanosPerSecond;  // to reap what is left, the init too
  }
  while (clocks_.WallNow() < give_up) {
    errno = 0;
    auto event = ptrace::WaitAny();  // the tick interrupts it
    if (!event) {
      if (errno == ECHILD) break;  // nothing traced is left
      continue;
    }
    if (event->kind != ptrace::StopKind::kExited && event->kind != ptrace::StopKind::kKilled) {
      ptrace::Resume(event->tid);
    }
  }
  // Namespaces that go with the tree: their mount namespace is held by its descriptor.
  if (inspect && !keep_init) options_.inspect_world(*result_, mount_namespace.get());
}

}  // namespace chess::supervisor
