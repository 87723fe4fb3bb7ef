// Snapshots every live thread (state, blocking call, stack) for deadlock and hang reports.
#pragma once

#include <vector>

#include "supervisor/execution_result.h"
#include "supervisor/futex_table.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// Every thread must be in a ptrace-stop (they are, when nothing can run).
std::vector<ThreadReport> BuildThreadReports(ThreadTable& threads, const FutexTable& futexes);

}  // namespace chess::supervisor
