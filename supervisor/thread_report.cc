#include "supervisor/thread_report.h"

#include "supervisor/backtrace.h"
#include "supervisor/syscall_format.h"
#include "seccomp/filter.h"

namespace chess::supervisor {

std::vector<ThreadReport> BuildThreadReports(ThreadTable& threads, const FutexTable& futexes) {
  std::vector<ThreadReport> reports;
  for (const auto& [id, thread] : threads.Live()) {
    ThreadReport report;
    report.thread = thread->id.value;
    // The ids the program sees (in its pid namespace); chess-trace's own for attaching a debugger.
    report.tid = thread->program_tid;
    report.pid = thread->process->program_pid;
    report.host_tid = thread->tid;
    report.state = ThreadStateName(thread->state);
    if (thread->state == ThreadState::kBlocked && thread->deadline && !futexes.IsWaiting(thread->tid)) {
      report.state = "sleeping";
    }
    if (thread->point.op == search::OpKind::kInterrupted && !thread->at_seccomp_stop) {
      // Stopped by the backstop between syscalls: its last call is long over.
      report.resource = "interrupted by the backstop while it computed, in no syscall";
    } else if (thread->in_vfork) {
      report.syscall = "vfork";
      report.call = "vfork()";
    } else if (thread->call.nr >= 0) {
      report.syscall = seccomp::SyscallName(thread->call.nr);
      report.call = FormatCall(thread->call, thread->tid);
    }
    if (report.resource.empty()) {
      report.resource = thread->waits_on.empty() ? DescribeResource(*thread) : thread->waits_on;
    }
    report.frames = CaptureBacktrace(thread->tid);
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace chess::supervisor
