// One execution of the preemption-bounded search (PLDI'07, with the fairness of PLDI'08): it
// replays the prefix its branch names, takes the branch's choice, and from there runs each
// thread on for as long as it can — the schedule with no further preemption — noting at every
// decision the other threads that could have run and whether running them would have cost a
// preemption. Those alternatives are the Explorer's next work.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "search/fair_scheduler.h"
#include "search/liveness_monitor.h"
#include "search/replay_strategy.h"
#include "search/strategy.h"

namespace chess::search {

// Where an execution starts: the decisions of an earlier execution up to `decision`, where
// `choice` runs instead. No path: the very first execution.
struct Branch {
  std::shared_ptr<const std::vector<RecordedDecision>> path;
  size_t decision = 0;
  ThreadId choice;
  uint32_t preemptions = 0;  // the execution's preemptions up to and including this choice
};

// A decision of the execution where another thread could have run.
struct Alternative {
  size_t decision = 0;
  ThreadId choice;
  bool preempting = false;  // running it would have preempted a thread that could go on
};

class BoundedExecution final : public Strategy {
 public:
  BoundedExecution(const Branch& branch, LivenessLimits limits);

  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override;
  [[nodiscard]] std::optional<std::string> Divergence() const override;
  [[nodiscard]] std::optional<StrategyVerdict> Verdict() const override { return liveness_.Verdict(); }
  [[nodiscard]] bool MayInterrupt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] bool InterruptedBefore(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] std::string Describe() const override { return "pb"; }

  // After the execution.
  const std::vector<RecordedDecision>& Decisions() const { return decisions_; }
  std::vector<RecordedDecision> TakeDecisions() { return std::move(decisions_); }
  const std::vector<Alternative>& Alternatives() const { return alternatives_; }
  uint32_t Preemptions() const { return static_cast<uint32_t>(preemptions_.size()); }
  // The decisions that were preemptions.
  const std::vector<size_t>& PreemptionDecisions() const { return preemptions_; }

  // Whether running `picked` at `context` preempts the thread that ran last: it stopped at a
  // point where it could simply go on, and fairness would have let it (a switch after a block,
  // an exit, a yield, or one that fairness forces is free).
  static bool IsPreemption(const SchedulingContext& context, ThreadId picked, std::span<const ThreadId> schedulable);

 private:
  bool Replaying() const { return replay_ && replay_->Followed() < replay_->Recorded(); }
  // The choices at a decision, in the order the search takes them: the thread that ran last
  // when it may go on, then creation order.
  static std::vector<ThreadId> Ordered(const SchedulingContext& context, std::span<const ThreadId> schedulable);

  std::optional<ReplayStrategy> replay_;
  FairScheduler fairness_;
  LivenessMonitor liveness_;
  std::vector<ThreadId> previous_enabled_;
  std::vector<RecordedDecision> decisions_;
  std::vector<Alternative> alternatives_;
  std::vector<size_t> preemptions_;
  std::optional<std::string> divergence_;
};

}  // namespace chess::search
