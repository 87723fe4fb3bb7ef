#include "search/fair_decisions.h"

#include "search/preemption.h"

namespace chess::search {

const std::vector<ThreadId>& FairDecisions::Begin(const SchedulingContext& context) {
  if (context.current && !decisions_.empty()) {
    fairness_.Stepped(*context.current, previous_enabled_, context.enabled, context.current_stop == StopReason::kYielded);
  }
  previous_enabled_.assign(context.enabled.begin(), context.enabled.end());
  schedulable_ = fairness_.Schedulable(context.enabled);
  if (schedulable_.empty()) schedulable_ = previous_enabled_;  // cannot happen (PLDI'08 invariant): never stall
  return schedulable_;
}

void FairDecisions::Took(const SchedulingContext& context, ThreadId picked) {
  if (CostsPreemption(context, picked, schedulable_)) preemptions_.push_back(decisions_.size());
  if (!Contains(context.enabled, picked)) previous_enabled_.push_back(picked);  // its deadline fires now
  decisions_.push_back(Decided(context, picked));
  liveness_.Observe(context, schedulable_, picked);
}

}  // namespace chess::search
