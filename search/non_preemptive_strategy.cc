#include "search/non_preemptive_strategy.h"

#include <algorithm>

namespace chess::search {

ThreadId NonPreemptiveStrategy::PickThread(const SchedulingContext& context) {
  const auto& enabled = context.enabled;
  if (!context.current) return enabled.front();
  const ThreadId current = *context.current;
  const bool current_enabled = std::binary_search(enabled.begin(), enabled.end(), current);
  if (current_enabled && context.current_stop == StopReason::kReachedPoint) return current;
  // Cyclic successor: a yielding thread passes the turn to everyone after it before it runs
  // again, so polite spin-and-yield loops make progress instead of starving their peers.
  auto next = std::upper_bound(enabled.begin(), enabled.end(), current);
  return next != enabled.end() ? *next : enabled.front();
}

}  // namespace chess::search
