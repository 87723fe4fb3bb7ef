#include "supervisor/report/thread_report.h"

#include <pthread.h>
#include <sys/syscall.h>

#include "seccomp/arch.h"
#include "seccomp/filter.h"
#include "seccomp/hypercall_abi.h"
#include "search/replay_strategy.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/report/point_history.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/report/syscall_format.h"

namespace chess::supervisor {
namespace {

// The functions a program waits on a condition variable through. The outermost one on the stack
// is the call the program made: pthread_cond_wait inside std::condition_variable::wait is the
// latter's business.
bool IsConditionWait(const std::string& function) {
  for (const char* name : {"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "cnd_wait",
                           "cnd_timedwait"}) {
    if (function == name) return true;
  }
  return function.rfind("std::condition_variable::wait", 0) == 0 ||
         function.rfind("std::_V2::condition_variable_any::wait", 0) == 0;
}

std::string ConditionCall(const std::vector<StackFrame>& frames, uint32_t op) {
  std::string call;
  for (const StackFrame& frame : frames) {
    if (IsConditionWait(frame.function)) call = frame.function.substr(0, frame.function.find('('));
  }
  if (!call.empty()) return call;
  return (op & CHESS_OP_FLAG_TIMED) != 0 ? "pthread_cond_timedwait" : "pthread_cond_wait";
}

}  // namespace

std::optional<uint64_t> WaitedFutexWord(const Thread& thread, const FutexTable& futexes) {
  if (!futexes.IsWaiting(thread.tid)) return std::nullopt;
  // The address in the waiter's own memory: a requeued waiter (moved from a condition variable
  // to its mutex) waits where its key says, not where its call said.
  uint64_t address = thread.call.args[0];
  if (const auto key = futexes.KeyOf(thread.tid); key && key->kind != FutexKey::Kind::kSharedObject) {
    address = key->offset;
  }
  return address;
}

bool WaitsOnAnnouncedCondition(const Thread& thread, uint64_t word) {
  // glibc waits on a word inside the pthread_cond_t (C11's cnd_t and std::condition_variable
  // are one); after a wake it takes the mutex again, and then it waits on the mutex's word.
  return (thread.announced_op & CHESS_OP_KIND_MASK) == CHESS_OP_COND_WAIT && word >= thread.announced_object &&
         word - thread.announced_object < sizeof(pthread_cond_t);
}

std::vector<ThreadReport> BuildThreadReports(ThreadTable& threads, const FutexTable& futexes) {
  std::vector<ThreadReport> reports;
  Symbolizer symbolizer;
  for (const auto& [id, thread] : threads.Live()) {
    ThreadReport report;
    report.thread = thread->id.value;
    // The ids the program sees (in its pid namespace); chess-trace's own for attaching a debugger.
    report.tid = thread->program_tid;
    report.pid = thread->process->program_pid;
    report.host_tid = thread->tid;
    report.state = ThreadStateName(thread->state);
    if (thread->state == ThreadState::kBlocked && thread->wait && thread->wait->deadline && !futexes.IsWaiting(thread->tid)) {
      report.state = "sleeping";
    }
    ProcessSymbols& symbols = symbolizer.Process(thread->process->tgid, thread->tid);
    if (thread->point.op == search::OpKind::kInterrupted && !thread->parked.AtEntry()) {
      // Stopped by the backstop between syscalls: its last call is long over.
      report.resource = "interrupted by the backstop while it computed, in no syscall";
    } else if (thread->in_vfork) {
      report.syscall = "vfork";
      report.call = "vfork()";
    } else if (thread->call.nr >= 0) {
      report.syscall = seccomp::SyscallName(thread->call.nr);
      // A sync operation the shim announced names its object, as the waits do.
      const bool sync_op = thread->call.nr == seccomp::kHypercallFirst + CHESS_HC_SYNC_OP;
      report.call = FormatCall(thread->call, thread->tid, sync_op ? symbols.NameData(thread->call.args[1]) : "");
    }
    report.frames = CaptureBacktrace(thread->tid, symbols);
    const std::optional<uint64_t> word = WaitedFutexWord(*thread, futexes);
    if (word && WaitsOnAnnouncedCondition(*thread, *word)) {
      report.condition = ConditionWait{thread->announced_object, symbols.NameData(thread->announced_object),
                                       ConditionCall(report.frames, thread->announced_op)};
      report.resource = "condition variable " + report.condition->name;
    }
    if (report.resource.empty() && thread->waits_on.empty() && !thread->in_vfork && thread->call.nr == SYS_futex) {
      report.resource = "futex " + symbols.NameData(word.value_or(thread->call.args[0]));
    }
    if (report.resource.empty()) {
      report.resource = thread->waits_on.empty() ? DescribeResource(*thread) : thread->waits_on;
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

std::vector<RepeatedCycle> ExplainLivelock(const PointHistory& history, ThreadTable& threads) {
  std::vector<RepeatedCycle> cycles;
  for (const PointHistory::Cycle& cycle : history.RepeatingCycles()) {
    const Thread* thread = threads.Find(search::ThreadId{cycle.thread});
    if (thread == nullptr) continue;
    RepeatedCycle repeated{cycle.thread, {}};
    ProcessSymbols symbols(thread->tid);
    for (const PointHistory::Step& step : cycle.steps) {
      const std::string object = step.point.op == search::OpKind::kSyncOp ? symbols.NameData(step.point.resource) : "";
      std::string where = search::DescribePoint(step.point, object);
      if (where.rfind("at ", 0) == 0 || where.rfind("in ", 0) == 0) where = where.substr(3);
      // The address of a point is its syscall instruction: worth showing only where the program
      // makes the syscall itself, not in the C library's wrapper or the shim's hypercall.
      const StackFrame frame = symbols.Code(step.pc);
      const bool wrapper = InRuntime(frame) || frame.module == "libchess_preload.so";
      repeated.steps.push_back(frame.function.empty() || wrapper ? where : where + " at " + FormatFrame(frame));
    }
    cycles.push_back(std::move(repeated));
  }
  return cycles;
}

}  // namespace chess::supervisor
