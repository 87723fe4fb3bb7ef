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
// Sharded (search/shard.h), every shard runs the first execution — and, when it offers too few
// alternatives to deal, the level below it — then keeps the subtrees dealt to it.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "search/bounded_execution.h"
#include "search/branch_run.h"
#include "search/search_engine.h"
#include "search/shard.h"
#include "search/state_cache.h"

namespace chess::search {

// The trunk of a sharded search: every shard runs it, level by level in the order its items were
// found, before any work of its own; then the next level's items are dealt out.
struct SearchTrunk {
  std::deque<Branch> level;   // items of `depth` still to run
  std::vector<Branch> found;  // items of depth + 1, in the order found
  uint32_t depth = 0;
  uint64_t ran = 0;  // trunk executions so far: the next one's rank
};

class BoundedSearch final : public SearchEngine {
 public:
  // `bounding`: pb or db. `bound`: the highest preemption (delay) count searched;
  // `max_executions` bounds the work kept; `shard`: the part of the search this process runs
  // (search/shard.h).
  BoundedSearch(StrategyKind bounding, uint32_t bound, uint64_t max_executions, bool state_cache,
                LivenessLimits liveness, Shard shard = {});

  StrategyKind Kind() const override { return bounding_; }
  std::optional<SearchEnd> Finished() const override { return end_; }
  EngineStep Step(ExecutionBackend& backend, ExplorationResult& result) override;
  void Progress(ExplorerProgress& progress) const override;

  // A shard's trunk ends once a level of it has at least this many items per shard to deal, or
  // at kMaxSplitDepth: deep enough to balance the shards, shallow enough to cost little.
  static constexpr uint64_t kDealtPerShard = 4;
  static constexpr uint32_t kMaxSplitDepth = 3;

 private:
  // Runs `branch` once, or twice when it diverges; counted as this shard's own or as a prefix
  // replayed for the others. Nullopt: given up (pruned), or the limit came before the retry.
  // Keeps `branch` to run later when the limit came first.
  std::optional<BranchRun> Run(const Branch& branch, bool owned, ExecutionBackend& backend, ExplorationResult& result,
                               EngineStep& step);
  // One execution of `branch`: on the backend's runner when it has one, else here.
  BranchRun RunOnce(const Branch& branch, bool retry, ExecutionBackend& backend);
  // Tells the backend's runner what runs next (search/branch_run.h).
  void Announce(ExecutionBackend& backend) const;
  // A new branch for round `child.spent`: queued, or dropped when --max-executions could
  // never reach it (this round's work before later rounds').
  void Keep(Branch child, ExplorationResult& result);
  // After the trunk level's last execution: the next level, or the deal.
  void EndTrunkLevel(ExplorationResult& result);
  // After the round's last execution: the next round, or the end.
  void EndRound(ExplorationResult& result);
  // A branch given up: where `execution` (number `number`) parted from the path it replayed,
  // and the likely cause, from what each found at shared names.
  static PrunedBranch Describe(const Branch& branch, const BranchRun& run, uint64_t number);
  // How many branches Announce names: enough to keep every worker of a machine busy.
  static constexpr size_t kAnnounced = 256;

  StrategyKind bounding_;
  uint32_t bound_limit_;
  uint64_t max_executions_;
  LivenessLimits liveness_;
  Shard shard_;
  std::optional<StateCache> cache_;
  std::optional<SearchTrunk> trunk_;  // while a sharded search runs its trunk
  // Work of the current round, taken from the back (depth first: the deepest alternatives of the
  // latest execution first, which keeps few paths alive), and of later rounds, by round (a
  // shard's dealt work may be two rounds ahead).
  std::vector<Branch> current_{Branch{}};
  std::map<uint32_t, std::vector<Branch>> later_;
  uint64_t queued_later_ = 0;
  uint32_t bound_ = 0;
  uint32_t highest_run_ = 0;  // the most any branch run so far had spent
  uint64_t done_in_bound_ = 0;
  bool beyond_bound_ = false;  // some schedule needs more than the bound allows
  // The lowest round work was left out of because more than --max-executions would be needed.
  std::optional<uint32_t> dropped_from_;
  std::optional<SearchEnd> end_;
  uint64_t next_serial_ = 1;
  BranchRunner* announced_to_ = nullptr;  // the runner told of upcoming branches, if any
};

}  // namespace chess::search
