// BoundedSearch: iterative preemption bounding (PLDI'07) with fair scheduling (PLDI'08), or
// iterative delay bounding (Emmi, Qadeer, Rakamarić, POPL'11) with the same fairness. Each
// execution replays a prefix of an earlier one, takes one new choice there, and runs on with the
// bounding's default schedule (pb: no preemption; db: round robin); the alternatives it passes
// become new work. Round c runs exactly the executions that spent c — c preemptions, or c delays:
// alternatives that cost nothing stay in the round, those that cost more wait for the round they
// bring the execution to — so bugs are found with the fewest preemptions (delays) first, and
// "every schedule with ≤ c preemptions (delays)" is a statement of coverage. With state caching,
// an execution that reaches a state searched before with no more spent adds no alternatives from
// there.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "search/bounded_execution.h"
#include "search/search_engine.h"
#include "search/state_cache.h"

namespace chess::search {

class BoundedSearch final : public SearchEngine {
 public:
  // `bounding`: pb or db. `bound`: the highest preemption (delay) count searched;
  // `max_executions` bounds the work kept.
  BoundedSearch(StrategyKind bounding, uint32_t bound, uint64_t max_executions, bool state_cache,
                LivenessLimits liveness);

  StrategyKind Kind() const override { return bounding_; }
  std::optional<SearchEnd> Finished() const override { return end_; }
  EngineStep Step(ExecutionBackend& backend, ExplorationResult& result) override;
  void Progress(ExplorerProgress& progress) const override;

 private:
  // After the round's last execution: the next round, or the end.
  void EndRound(ExplorationResult& result);
  // A branch given up: where `execution` (number `number`) parted from the path it replayed,
  // and the likely cause, from what each found at shared names.
  static PrunedBranch Describe(const Branch& branch, const BoundedExecution& execution,
                               const ExecutionSummary& summary, uint64_t number);

  // Work queued for the rounds after this one.
  size_t QueuedLater() const;

  StrategyKind bounding_;
  uint32_t bound_limit_;
  uint64_t max_executions_;
  LivenessLimits liveness_;
  std::optional<StateCache> cache_;
  // Work of the current round, taken from the back (depth first: the deepest alternatives of the
  // latest execution first, which keeps few paths alive), and of the rounds after it, by round
  // (pb's alternatives all go to the next one; a db alternative may skip rounds).
  std::vector<Branch> current_{Branch{}};
  std::map<uint32_t, std::vector<Branch>> later_;
  uint32_t bound_ = 0;
  uint64_t done_in_bound_ = 0;
  bool beyond_bound_ = false;  // some schedule needs more preemptions than the bound allows
  // The first round that lost work because more than --max-executions would be needed.
  std::optional<uint32_t> dropped_from_;
  std::optional<SearchEnd> end_;
};

}  // namespace chess::search
