// One execution of a bounded search — preemption bounding (PLDI'07, with the fairness of
// PLDI'08) or delay bounding (POPL'11): it replays the prefix its branch names, takes the
// branch's choice, and from there follows the bounding's default schedule — each thread on for as
// long as it can; for delay bounding, then the next one round robin — noting at every decision the
// other threads that could have run and what running them would have cost. Those alternatives
// are the search's next work.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "search/determinism_check.h"
#include "search/fair_decisions.h"
#include "search/replay_strategy.h"
#include "search/state_cache.h"
#include "search/strategy.h"
#include "search/strategy_kind.h"

namespace chess::search {

// An execution the search branches from: which one it was, its decisions, and what it found at
// the shared names it looked up (ExecutionSummary::names) — what an execution that cannot
// follow its decisions is compared with.
struct ExecutionPath {
  uint64_t execution = 0;
  std::vector<RecordedDecision> decisions;
  std::vector<SyscallEvent> names;
};

// Where an execution starts: the decisions of an earlier execution up to `decision`, where
// `choice` runs instead. No path: the very first execution.
struct Branch {
  std::shared_ptr<const ExecutionPath> path;
  size_t decision = 0;
  ThreadId choice;
  // What the execution spent of its bound up to and including this choice: its preemptions, or
  // its delays.
  uint32_t spent = 0;
  // For shards (search/shard.h): how many choices the schedule makes that the first execution
  // did not (this one and its path's), and the rank its subtree was dealt at, which says the
  // shard that runs it (none: the trunk, or a search not split).
  uint32_t depth = 0;
  std::optional<uint64_t> dealt;
  // Names the branch to a BranchRunner that runs branches ahead (-j): unique in a search.
  uint64_t serial = 0;
};

// A decision of the execution where another thread could have run.
struct Alternative {
  size_t decision = 0;
  ThreadId choice;
  // What running it instead would have cost: a preemption (0 or 1) when it would have preempted
  // a thread that could go on, or the delays, the schedulable threads the round robin skips.
  uint32_t cost = 0;
};

class BoundedExecution final : public Strategy {
 public:
  // `record_states`: note the state at each decision where it could branch (StateVisit), for
  // the search's state cache. `bounding`: what a choice costs, pb's preemptions or db's delays.
  BoundedExecution(const Branch& branch, LivenessLimits limits, bool record_states = false,
                   StrategyKind bounding = StrategyKind::kPb);

  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override;
  [[nodiscard]] std::optional<std::string> Divergence() const override;
  // Where the execution stopped fitting its prefix, when it did.
  std::optional<DivergencePoint> Diverged() const;
  [[nodiscard]] std::optional<StrategyVerdict> Verdict() const override { return fair_.Verdict(); }
  [[nodiscard]] bool MayInterrupt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] bool InterruptedBefore(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] std::string Describe() const override { return std::string(StrategyName(bounding_)); }

  // After the execution.
  const std::vector<RecordedDecision>& Decisions() const { return fair_.Decisions(); }
  std::vector<RecordedDecision> TakeDecisions() { return fair_.TakeDecisions(); }
  const std::vector<Alternative>& Alternatives() const { return alternatives_; }
  uint32_t Preemptions() const { return fair_.Preemptions(); }
  // What it spent of the bound: its branch's, as it follows the default schedule after it.
  uint32_t Spent() const { return spent_; }
  // The decisions that were preemptions.
  const std::vector<size_t>& PreemptionDecisions() const { return fair_.PreemptionDecisions(); }
  // The states it reached where it could have branched, in order (with record_states).
  const std::vector<StateVisit>& Visits() const { return visits_; }
  std::vector<StateVisit> TakeVisits() { return std::move(visits_); }
  std::vector<Alternative> TakeAlternatives() { return std::move(alternatives_); }

 private:
  bool Replaying() const { return replay_ && replay_->Followed() < replay_->Recorded(); }
  // The choices at a decision, in the order the search takes them, the default first: for pb the
  // thread that ran last when it may go on, then creation order; for db the round robin from the
  // thread that ran last when it may go on, else from the next one after it. Then the deadlines
  // that could be fired early.
  std::vector<ThreadId> Ordered(const SchedulingContext& context, std::span<const ThreadId> schedulable) const;
  // What taking `ordered[index]` instead of the default costs.
  uint32_t Cost(const SchedulingContext& context, std::span<const ThreadId> ordered, size_t index,
                std::span<const ThreadId> schedulable) const;
  // Notes the state this decision is taken in.
  void RecordState(const SchedulingContext& context, size_t decision);
  // The picked thread carries out the operation it stopped at.
  void NoteExecuted(const SchedulingContext& context, ThreadId picked);

  StrategyKind bounding_;
  uint32_t spent_ = 0;
  std::optional<ReplayStrategy> replay_;
  FairDecisions fair_;
  std::vector<Alternative> alternatives_;
  std::optional<DivergencePoint> divergence_;  // the replayed choice is not schedulable under fairness
  bool record_states_ = false;
  HappensBeforeHash happens_before_;
  std::vector<SchedulingPoint> stopped_at_;  // per thread: the operation it will carry out next
  std::vector<StateVisit> visits_;
};

}  // namespace chess::search
