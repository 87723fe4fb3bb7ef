// The critical pair of a failing schedule: two atomic operations or racing accesses (points before
// an instruction: AtInstruction) on the same memory whose order a preemption decided. A thread was
// preempted just before its instruction on some address, and before it ran again another thread
// ran such an instruction on that address: had the first gone on, the order would have been the
// other way. This is CHESS's "which two accesses' order decided it", named from the schedule
// alone (the points carry thread, address and instruction).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "search/replay_strategy.h"

namespace chess::search {

struct CriticalPair {
  size_t preemption = 0;  // the decision that preempted `waited`
  ThreadId waited;         // the thread preempted before its instruction
  SchedulingPoint waited_at;
  ThreadId went_first;     // the thread whose instruction on the same memory ran first
  SchedulingPoint went_first_at;
};

// The pair of the latest preemption at an instruction's point that has one; nothing when no
// preemption of `schedule` (at `preemptions`, its decisions' indices) was at an atomic or
// racy-access point, or none was followed by another thread's such operation on the same memory
// before the thread ran again.
std::optional<CriticalPair> FindCriticalPair(const std::vector<RecordedDecision>& schedule,
                                             const std::vector<size_t>& preemptions);

}  // namespace chess::search
