// FairDecisions: the bookkeeping every searching strategy does around its own choice — the
// fairness relation (PLDI'08) that says who may be scheduled, the record of the decisions and of
// those that cost a preemption, and the liveness verdicts. BoundedExecution and the sampled
// strategies differ only in how they choose between Schedulable() and the timed threads.
#pragma once

#include <optional>
#include <vector>

#include "search/fair_scheduler.h"
#include "search/liveness_monitor.h"
#include "search/replay_strategy.h"
#include "search/strategy.h"

namespace chess::search {

class FairDecisions {
 public:
  explicit FairDecisions(LivenessLimits limits) : liveness_(limits) {}

  // Before choosing at `context`: the step that led here is taken into the fairness relation;
  // returns the threads it lets run (never empty).
  const std::vector<ThreadId>& Begin(const SchedulingContext& context);
  // After choosing `picked` (an enabled thread, or a timed one whose deadline fires now).
  void Took(const SchedulingContext& context, ThreadId picked);

  const std::vector<ThreadId>& Schedulable() const { return schedulable_; }
  uint64_t FairnessFingerprint() const { return fairness_.Fingerprint(); }
  const std::optional<StrategyVerdict>& Verdict() const { return liveness_.Verdict(); }
  const std::vector<RecordedDecision>& Decisions() const { return decisions_; }
  std::vector<RecordedDecision> TakeDecisions() { return std::move(decisions_); }
  uint32_t Preemptions() const { return static_cast<uint32_t>(preemptions_.size()); }
  const std::vector<size_t>& PreemptionDecisions() const { return preemptions_; }

 private:
  FairScheduler fairness_;
  LivenessMonitor liveness_;
  std::vector<ThreadId> previous_enabled_;
  std::vector<ThreadId> schedulable_;
  std::vector<RecordedDecision> decisions_;
  std::vector<size_t> preemptions_;
};

}  // namespace chess::search
