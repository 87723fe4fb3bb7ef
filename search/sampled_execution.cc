#include "search/sampled_execution.h"

#include <algorithm>

#include "search/preemption.h"
#include "search/strategy_kind.h"

namespace chess::search {

ThreadId SampledExecution::PickThread(const SchedulingContext& context) {
  const std::vector<ThreadId>& schedulable = fair_.Begin(context);
  if (context.current) Stopped(context);

  ThreadId picked;
  if (IsForcedYield(context)) {
    // As in the bounded search: where the backstop stops a thread is a matter of timing, so the
    // choice there is no sample's to make.
    picked = NextAfterForcedYield(*context.current, schedulable);
  } else {
    std::vector<ThreadId> candidates = schedulable;
    candidates.insert(candidates.end(), context.timed.begin(), context.timed.end());
    if (candidates.size() == 1) {
      picked = candidates.front();
    } else {
      ++choice_steps_;
      picked = Choose(context, candidates);
    }
  }
  fair_.Took(context, picked);
  return picked;
}

std::string RandomWalk::Describe() const {
  return std::string(StrategyName(StrategyKind::kRandom)) + " (seed " + std::to_string(Seed()) + ")";
}

ThreadId RandomWalk::Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) {
  (void)context;
  return candidates[Uniform(candidates.size())];
}

namespace {

// Initial priorities lie above every value a change point or a yield gives.
constexpr int64_t kInitialBase = int64_t{1} << 48;

}  // namespace

PctExecution::PctExecution(uint64_t seed, LivenessLimits limits, uint32_t depth, uint64_t estimated_steps)
    : SampledExecution(seed, limits), depth_(std::max<uint32_t>(depth, 1)), estimated_steps_(estimated_steps) {
  // d−1 distinct change steps among 1..k (as many as there are steps, if fewer); change point i
  // gets priority d−1−i, in the random order the steps were drawn.
  const uint64_t changes = std::min<uint64_t>(depth_ - 1, estimated_steps_);
  while (change_steps_.size() < changes) {
    const uint64_t step = 1 + Uniform(estimated_steps_);
    if (std::find(change_steps_.begin(), change_steps_.end(), step) == change_steps_.end()) {
      change_steps_.push_back(step);
    }
  }
}

std::string PctExecution::Describe() const {
  return std::string(StrategyName(StrategyKind::kPct)) + " (depth " + std::to_string(depth_) + ", seed " + std::to_string(Seed()) + ", k " +
         std::to_string(estimated_steps_) + ")";
}

int64_t& PctExecution::PriorityOf(ThreadId thread) {
  if (thread.value >= priority_.size()) priority_.resize(thread.value + 1);
  std::optional<int64_t>& priority = priority_[thread.value];
  // A new thread takes a random place among the initial priorities (40 random bits: distinct
  // in practice; ties go to creation order).
  if (!priority) priority = kInitialBase + static_cast<int64_t>(Uniform(uint64_t{1} << 40));
  return *priority;
}

void PctExecution::Stopped(const SchedulingContext& context) {
  const ThreadId thread = *context.current;
  const auto fired = std::find(fired_.begin(), fired_.end(), thread);
  if (context.current_stop == StopReason::kYielded) {
    Lower(thread);
  } else if (fired != fired_.end() && context.current_stop != StopReason::kReachedPoint) {
    Lower(thread);  // a wait that timed out counts as a yield (design §3)
  }
  if (fired != fired_.end() && context.current_stop != StopReason::kReachedPoint) fired_.erase(fired);
}

ThreadId PctExecution::Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) {
  ++steps_;
  for (size_t i = 0; i < change_steps_.size(); ++i) {
    if (change_steps_[i] == steps_ && context.current) {
      PriorityOf(*context.current) = static_cast<int64_t>(change_steps_.size() - i);
    }
  }
  ThreadId best = candidates.front();
  for (ThreadId thread : candidates) {
    if (PriorityOf(thread) > PriorityOf(best)) best = thread;
  }
  if (std::find(context.enabled.begin(), context.enabled.end(), best) == context.enabled.end() &&
      std::find(fired_.begin(), fired_.end(), best) == fired_.end()) {
    fired_.push_back(best);
  }
  return best;
}

}  // namespace chess::search
