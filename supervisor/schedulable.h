// Which threads of the table the search may pick at a decision: those that can run, and the
// blocked ones whose deadline it may fire ahead of time (design §3).
#pragma once

#include <vector>

#include "search/scheduling_point.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// Whether the thread can run when picked: ready (or out of the tree's view, kExternal), and not
// of a process that is dying.
bool Schedulable(const Thread& thread);

// The schedulable threads.
std::vector<search::ThreadId> EnabledThreads(const ThreadTable& threads);

// Whether a thread other than `thread` is schedulable: only then is interrupting it of use.
bool AnyOtherSchedulable(const ThreadTable& threads, const Thread& thread);

// The blocked threads with a deadline, of processes that are not dying: in virtual time a
// search may fire their deadline early.
std::vector<search::ThreadId> TimedThreads(const ThreadTable& threads);

// Whether some blocked thread has a deadline.
bool AnyDeadline(const ThreadTable& threads);

}  // namespace chess::supervisor
