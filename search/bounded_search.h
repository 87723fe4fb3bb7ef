// BoundedSearch: iterative preemption bounding (PLDI'07) with fair scheduling (PLDI'08). Each
// execution replays a prefix of an earlier one, takes one new choice there, and runs on without
// preempting; the alternatives it passes become new work. Round c runs exactly the executions
// with c preemptions — alternatives that cost no preemption stay in the round, those that cost
// one wait for the next — so bugs are found with the fewest preemptions first, and "every
// schedule with ≤ c preemptions" is a statement of coverage. With state caching, an execution
// that reaches a state searched before with no more preemptions adds no alternatives from there.
#pragma once

#include <optional>
#include <vector>

#include "search/bounded_execution.h"
#include "search/search_engine.h"
#include "search/state_cache.h"

namespace chess::search {

class BoundedSearch final : public SearchEngine {
 public:
  // `bound`: the highest preemption count searched; `max_executions` bounds the work kept.
  BoundedSearch(uint32_t bound, uint64_t max_executions, bool state_cache, LivenessLimits liveness);

  StrategyKind Kind() const override { return StrategyKind::kPb; }
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

  uint32_t bound_limit_;
  uint64_t max_executions_;
  LivenessLimits liveness_;
  std::optional<StateCache> cache_;
  // Work of the current round, taken from the back (depth first: the deepest alternatives of the
  // latest execution first, which keeps few paths alive), and of the next round.
  std::vector<Branch> current_{Branch{}};
  std::vector<Branch> next_;
  uint32_t bound_ = 0;
  uint64_t done_in_bound_ = 0;
  bool beyond_bound_ = false;  // some schedule needs more preemptions than the bound allows
  // Work left out because more than --max-executions would be needed, in this round and the next.
  bool dropped_ = false;
  bool dropped_next_ = false;
  std::optional<SearchEnd> end_;
};

}  // namespace chess::search
