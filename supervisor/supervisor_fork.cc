// The supervisor's side of the fork server (fork_server.h): where the template is made, what
// a prefix may have done for a copy of its process to be the same execution, and how an
// execution forked from the template takes up the prefix's state.
#include <sched.h>
#include <sys/syscall.h>

#include "supervisor/sandbox.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

bool IsCloneSyscall(int64_t nr) {
  return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork;
}

}  // namespace

bool UsesForkServer(const SupervisorOptions& options, const IsolatedInit& init) {
  return options.fork_server != nullptr && options.shared_init == &init && options.log == nullptr &&
         options.observer == nullptr && !options.stop_before_decision && !options.stop_at_failure &&
         options.backtrace_before.empty() && init.Reusable() && (init.Namespaces() & CLONE_NEWNS) != 0;
}

std::optional<std::string> Supervisor::WhyNotForkable(const Thread& thread) const {
  if (threads_.Live().size() != 1 || threads_.Processes().size() != 1) {
    return "the program's first thread is not made by its first process";
  }
  const Process& process = *thread.process;
  // Nothing of the prefix may still be in flight, or be kept by the kernel for the process
  // alone (timers are not inherited by a fork).
  const bool process_idle = !process.dying && process.vfork_parent == 0 && !process.alarm.expires &&
                            process.posix_timers.empty() && process.timerfds.empty() &&
                            process.job_change == Process::JobChange::kNone;
  if (execution_.prefix_forkable && thread.Idle() && process_idle && futexes_.Empty() && early_stops_.empty() &&
      signal_scan_.NothingNoted() && execution_.crash_threads.empty()) {
    return std::nullopt;
  }
  return "before its first thread, the program did what a copy of its process would not repeat (a futex, a "
         "signal, a timer, an I/O wait, SysV IPC, a file published to other processes…)";
}

PrefixState Supervisor::SnapshotPrefix(const Thread& thread) const {
  PrefixState prefix;
  prefix.tape = strategy_.Taped();
  prefix.process = *thread.process;
  prefix.thread = thread;
  prefix.address_spaces = threads_.AddressSpaces();
  if (clocks_.Virtual() != nullptr) prefix.virtual_elapsed = clocks_.Virtual()->Elapsed();
  prefix.ran_before = last_ != nullptr;
  prefix.execution = execution_;
  return prefix;
}

void Supervisor::MakeTemplate(Thread& thread) {
  if (!IsCloneSyscall(thread.regs.SyscallNr())) return;
  // One try, at the root's first clone: whatever happens, the tape is no longer needed.
  strategy_.Tape(false);
  const int fresh = init_->Namespaces() & (CLONE_NEWIPC | CLONE_NEWUTS);
  if (auto why_not = WhyNotForkable(thread)) {
    options_.fork_server->Decline(std::move(*why_not));
  } else if (auto refused = FiltersRefuseTemplate(thread, fresh, !init_->CwdToEnter().empty())) {
    options_.fork_server->Decline(std::move(*refused));
  } else {
    // Failing leaves the root where it was: this execution goes on, and the next ones exec.
    const Result<void> made =
        options_.fork_server->Make(thread.tid, thread.regs, thread, fresh, *init_, SnapshotPrefix(thread));
    // Back at the same seccomp stop — or dead while chess-trace injected calls into it (its own
    // seccomp filter refused one that FiltersRefuseTemplate let through, say): then how the
    // execution ended is chess-trace's doing, not the program's.
    if (!ptrace::GetRegisters(thread.tid, thread.regs)) {
      Finish(search::Outcome::kError, "the program's process died while chess-trace forked a template from it" +
                                          (made ? std::string() : " (" + made.error() + ")"));
    }
  }
  strategy_.Forget();
}

bool Supervisor::AdoptForked(const ForkServer::Forked& forked, Thread*& main_thread) {
  const PrefixState& prefix = options_.fork_server->Prefix();
  Process& root = threads_.AddProcess(forked.pid, prefix.process.address_space, forked.program_pid);
  {
    const pid_t tgid = root.tgid;
    const pid_t program_pid = root.program_pid;
    std::vector<pid_t> ns_pids = std::move(root.ns_pids);
    root = prefix.process;
    root.tgid = tgid;
    root.program_pid = program_pid;
    root.ns_pids = std::move(ns_pids);
  }
  threads_.SetAddressSpaces(prefix.address_spaces);
  Thread& thread = threads_.AddThread(forked.pid, root);
  {
    const search::ThreadId id = thread.id;
    const pid_t tid = thread.tid;
    const pid_t program_tid = thread.program_tid;
    std::vector<pid_t> ns_tids = std::move(thread.ns_tids);
    thread = prefix.thread;
    thread.id = id;
    thread.tid = tid;
    thread.program_tid = program_tid;
    thread.ns_tids = std::move(ns_tids);
    thread.process = &root;
    thread.state = ThreadState::kRunning;
  }
  main_thread = &thread;
  if (clocks_.Virtual() != nullptr && prefix.virtual_elapsed) {
    clocks_.Virtual()->AdvanceTo(VirtualClock::kStart + *prefix.virtual_elapsed);
  }
  last_ = prefix.ran_before ? &thread : nullptr;
  // What the prefix said, each execution says, as one that ran it would.
  std::set<std::string> said = std::move(execution_.notices);
  execution_ = prefix.execution;
  execution_.notices = std::move(said);
  for (const std::string& notice : prefix.execution.notices) Notice(notice);
  if (auto mismatch = strategy_.Play(prefix.tape)) {
    Finish(search::Outcome::kDivergence, "the execution forked from the template is not the one asked for (" +
                                             *mismatch + ")");
    return false;
  }
  return true;
}

}  // namespace chess::supervisor
