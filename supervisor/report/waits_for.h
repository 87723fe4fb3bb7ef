// The waits-for graph of a stuck tree: for every blocked thread, which threads could end its
// wait — the holder of the mutex it waits for, the thread it joins, the child it awaits in
// wait4, the processes holding the other end of its pipe or socket — and the cycle among them
// when there is one. It turns "no thread can run" into the sentence a person can act on:
// "thread 1 (pid 3) in read waits for pid 2, the only holder of the pipe's write end; thread 0
// (pid 2) in wait4 waits for its child pid 3".
#pragma once

#include <vector>

#include "supervisor/execution_result.h"
#include "supervisor/handlers/futex_table.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// Fills every report's waits_for and waits_for_threads (reports and threads.Live() describe the
// same threads, every one in a ptrace-stop) and returns the first cycle, rotated to start at its
// lowest thread, or nothing when the waits form no cycle (a hang on the outside world, a wait
// for a signal nobody will send).
std::vector<WaitStep> ExplainWaits(ThreadTable& threads, const FutexTable& futexes,
                                   std::vector<ThreadReport>& reports);

}  // namespace chess::supervisor
