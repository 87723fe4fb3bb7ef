// wait4 and waitid: a thread whose process has children, none of them exited, is disabled until
// one exits; the kernel then runs the call, which reaps without blocking. Everything else (a
// zombie to collect, no child at all, WNOHANG) the kernel answers at once. With cross-process
// points the call is a scheduling point first: whether the parent looks before or after a
// child's exit is a choice of the search (a WNOHANG poll most of all).
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

enum class ChildState { kGone, kRunning, kZombie };

ChildState StateOf(pid_t pid) {
  const std::optional<char> state = KernelState(pid);
  if (!state) return ChildState::kGone;
  return *state == 'Z' || *state == 'X' ? ChildState::kZombie : ChildState::kRunning;
}

}  // namespace

Changes WantedChanges(bool is_wait4, uint64_t options) {
  return {is_wait4 || (options & WEXITED) != 0, (options & WUNTRACED) != 0, (options & WCONTINUED) != 0};
}

namespace {

// The ptrace-stops of the caller's emulated tracees are the supervisor's to report: the kernel
// sees only its own tracer. What the kernel would write for one (wait_task_stopped): the status
// word and zeroed resource usage for wait4, a CLD_TRAPPED siginfo for waitid.
ExecuteAnswer ReportTraceStop(SyscallContext& ctx, Thread& tracee, bool is_wait4, uint64_t options) {
  const std::optional<int> status = tracee.traced->Report((options & WNOWAIT) == 0);
  const RemoteMemory memory = ctx.Memory();
  if (is_wait4) {
    if (ctx.Arg(1) != 0 && !memory.Write(ctx.Arg(1), *status)) return ExecuteAnswer::Complete(-EFAULT);
    if (ctx.Arg(3) != 0 && !memory.Write(ctx.Arg(3), rusage{})) return ExecuteAnswer::Complete(-EFAULT);
    return ExecuteAnswer::Complete(tracee.program_tid);
  }
  siginfo_t info{};
  info.si_signo = SIGCHLD;
  info.si_pid = tracee.program_tid;
  info.si_uid = getuid();
  if (WIFEXITED(*status)) {
    info.si_code = CLD_EXITED;
    info.si_status = WEXITSTATUS(*status);
  } else if (WIFSIGNALED(*status)) {
    info.si_code = WCOREDUMP(*status) ? CLD_DUMPED : CLD_KILLED;
    info.si_status = WTERMSIG(*status);
  } else {
    info.si_code = CLD_TRAPPED;
    info.si_status = WSTOPSIG(*status);
  }
  if (ctx.Arg(2) != 0 && !memory.Write(ctx.Arg(2), info)) return ExecuteAnswer::Complete(-EFAULT);
  if (ctx.Arg(4) != 0 && !memory.Write(ctx.Arg(4), rusage{})) return ExecuteAnswer::Complete(-EFAULT);
  return ExecuteAnswer::Complete(0);
}

ExecuteAnswer WaitForChildren(SyscallContext& ctx) {
  const bool is_wait4 = ctx.thread.call.nr == SYS_wait4;
  const uint64_t options = is_wait4 ? ctx.Arg(2) : ctx.Arg(3);
  // Which children the call waits for; process groups are not tracked, so a group wait counts
  // every child (the kernel still applies the group when it runs the call).
  pid_t only = 0;
  if (is_wait4) {
    const auto pid = static_cast<pid_t>(ctx.Arg(0));
    if (pid > 0) only = pid;
  } else {
    if (ctx.Arg(0) == P_PID) only = static_cast<pid_t>(ctx.Arg(1));
    if (ctx.Arg(0) == P_PIDFD) return ExecuteAnswer::Native();
  }
  // The caller's emulated tracees (by tid, as the kernel matches a traced thread): a stop not
  // yet reported is reported now; one still running may stop, so the caller waits for it.
  bool any_tracee = false;
  // (A dead one too: its death, when the tracer is not its parent, is the tracer's to see.)
  for (const auto& [id, tracee] : ctx.services.Threads().All()) {
    if (!tracee->traced || tracee->traced->TracerProcess() != ctx.thread.process->tgid ||
        (only != 0 && tracee->program_tid != only)) {
      continue;
    }
    if (tracee->traced->Report(false)) return ReportTraceStop(ctx, *tracee, is_wait4, options);
    any_tracee = any_tracee || tracee->Alive();
  }
  if (options & WNOHANG) {
    // The kernel knows nothing of a tracee that is not a child: it would fail with ECHILD.
    if (any_tracee && (only != 0 || ctx.services.Threads().LiveChildren(ctx.thread.process->tgid).empty())) {
      return ExecuteAnswer::Complete(0);
    }
    return ExecuteAnswer::Native();
  }
  const Changes wanted = WantedChanges(is_wait4, options);
  bool any_child = false;
  for (const auto& [tgid, process] : ctx.services.Threads().Processes()) {
    if (process->parent != ctx.thread.process->tgid || (only != 0 && PidSeenBy(*ctx.thread.process, *process) != only)) {
      continue;
    }
    const ChildState state = StateOf(tgid);
    if (state == ChildState::kGone) continue;
    if (state == ChildState::kZombie && wanted.exit) return ExecuteAnswer::Native();  // reaped at once
    if (wanted.Collects(process->job_change)) {
      process->job_change = Process::JobChange::kNone;  // the kernel reports it now
      return ExecuteAnswer::Native();
    }
    any_child = true;
  }
  if (!any_child && !any_tracee) return ExecuteAnswer::Native();  // ECHILD, or a child chess-trace does not know
  return ctx.BlockUntil({ChildWait{}});
}

Disposition WaitEntry(SyscallContext& ctx) {
  if (ctx.services.IoPoints()) return Disposition::Point(search::OpKind::kSyscall, 0, false);
  return WaitForChildren(ctx);
}

}  // namespace

FamilyHandler WaitHandler() { return {WaitEntry, WaitForChildren}; }

}  // namespace chess::supervisor
