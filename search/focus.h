// --focus: a search of some programs of a tree, not of every process it starts. A wrapper (a
// version manager's shell shim, `env`, a test runner's script) can start dozens of short-lived
// processes before the program under test; each of their decisions multiplies the schedules
// while none of their interleavings is of interest. With a focus, the threads of the other
// processes run as they would without a search: the one that stopped goes on when it can (no
// preemption), and when it cannot, only the first of them in creation order is offered beside the
// focused threads (no permutations among them); their deadlines are never fired early.
#pragma once

#include <functional>
#include <vector>

#include "search/strategy.h"

namespace chess::search {

struct FocusedChoices {
  std::vector<ThreadId> enabled;
  std::vector<ThreadId> timed;
};

// The choices a strategy is offered at one decision, narrowed to the focused threads.
// `focused(t)` says whether thread t belongs to a focused process. Never empty when
// `context.enabled` is not.
FocusedChoices NarrowToFocus(const SchedulingContext& context, const std::function<bool(ThreadId)>& focused);

}  // namespace chess::search
