// ExecutionState: what the supervisor learns in the course of one execution, as one plain
// value. An execution forked from a template (supervisor/world/fork_server.h) starts from a copy
// of the prefix's, taken at the template point, instead of from nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "supervisor/atomic_points.h"
#include "search/random.h"
#include "search/scheduling_point.h"
#include "supervisor/execution_result.h"
#include "supervisor/program_images.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/report/point_history.h"
#include "supervisor/report/thread_report.h"
#include "supervisor/slice_meter.h"

namespace chess::supervisor {

struct ExecutionState {
  uint64_t points = 0;      // scheduling decisions made
  uint64_t dispatches = 0;  // threads resumed so far: a change means the tree moved
  search::StopReason last_stop = search::StopReason::kReachedPoint;  // of the thread that ran last
  SliceMeter slice;         // the running thread's turn
  std::optional<search::SeededRandom> random;  // the program's randomness, when seeded
  PointHistory history;     // the last points run, to explain a livelock
  std::set<std::string> notices;  // said to the user already
  std::vector<RefusedCall> refused;
  ProgramImages images;     // what each program the tree exec'd let the search see
  std::set<std::pair<uint64_t, uint64_t>> starting_files;  // (st_dev, st_ino), see HandlerServices::IoPointOn
  std::map<uint64_t, std::vector<StackFrame>> decision_stacks;  // see backtrace_before
  std::vector<search::SyscallEvent> names;  // see SupervisorOptions::watch_names
  std::vector<ThreadReport> crash_threads;  // the tree when a fatal signal reached the root
  // False once the prefix made a syscall or stop that a copy of its process would not repeat:
  // no fork server's template then (Supervisor::WhyNotForkable).
  bool prefix_forkable = true;
  // With atomic points: every address space's breakpoints, and what the execution learned.
  AtomicPointState atomics;
};

}  // namespace chess::supervisor
