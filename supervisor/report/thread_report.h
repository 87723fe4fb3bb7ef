// Snapshots every live thread (state, blocking call, stack) for deadlock and hang reports.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "supervisor/execution_result.h"
#include "supervisor/handlers/futex_table.h"
#include "supervisor/report/point_history.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// Every thread must be in a ptrace-stop (they are, when nothing can run). Stacks get source
// lines, futex words and condition variables their variables' names where the symbols say.
std::vector<ThreadReport> BuildThreadReports(ThreadTable& threads, const FutexTable& futexes);

// The futex word a blocked thread waits on, in its own memory; nothing when it waits on none.
std::optional<uint64_t> WaitedFutexWord(const Thread& thread, const FutexTable& futexes);

// Whether a futex wait on `word` is the wait of the condition variable the thread's preload shim
// last announced (pthread_cond_wait, cnd_wait), and not, say, its mutex taken again after.
bool WaitsOnAnnouncedCondition(const Thread& thread, uint64_t word);

// The cycle each thread of a livelock went round, from the execution's last points: where each
// step stopped, named in the program's terms.
std::vector<RepeatedCycle> ExplainLivelock(const PointHistory& history, ThreadTable& threads);

}  // namespace chess::supervisor
