// BranchRun: what one execution of a bounded search's branch came to — everything the search
// takes from it, as plain data. The execution may have run here or in a worker process (`-j`,
// docs/scale.md): the search commits runs in the order one process would have run them, and
// applies the state cache only then, so that where and when an execution ran changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/bounded_execution.h"
#include "search/explorer.h"

namespace chess::search {

struct BranchRun {
  ExecutionSummary summary;
  std::vector<RecordedDecision> decisions;
  // Every thread that could have run instead at a decision taken by the default schedule, and
  // the states reached at those decisions (with state caching): the cache prunes at commit.
  std::vector<Alternative> alternatives;
  std::vector<StateVisit> visits;
  uint32_t preemptions = 0;
  uint32_t spent = 0;
  std::vector<size_t> preemption_decisions;
  std::string strategy;                     // BoundedExecution::Describe()
  std::optional<DivergencePoint> diverged;  // where it stopped fitting its prefix
  // What the backend that ran it noted for its own tallies (a worker's, for the search's
  // backend to take in when the search does): opaque here.
  std::string observed;
  // A sample's decisions at which more than one thread could have run (PCT's k is the first
  // sample's); 0 for a branch.
  uint64_t choice_steps = 0;
};

// A sample of pct or random (search/sampled_search.h), as whoever runs it needs it: everything
// its schedule depends on — the search's seed, the sample's number and PCT's depth and k — and
// nothing that depends on which samples ran before it.
struct SampleRequest {
  StrategyKind kind = StrategyKind::kRandom;
  uint64_t index = 0;
  uint64_t seed = 0;  // the search's, not the sample's
  uint32_t pct_depth = 0;
  uint64_t estimated_steps = 0;  // PCT's k: 0 for the first sample itself
};

// Runs `branch` once on `backend`: the execution a BoundedSearch would have run, with the states
// recorded when `record_states` (state caching on) — what a worker of a parallel search does.
BranchRun RunBranch(const Branch& branch, LivenessLimits liveness, bool record_states, StrategyKind bounding,
                    ExecutionBackend& backend);

// The bounding the branches of a search with --strategy `strategy` run under: db's for db, pb's
// otherwise (pct's and random's branches are their bugs' minimization, which is pb's).
inline StrategyKind BranchBounding(StrategyKind strategy) {
  return strategy == StrategyKind::kDb ? StrategyKind::kDb : StrategyKind::kPb;
}

// Runs sample `sample` once on `backend` (sampled_search.cc): the execution SampledSearch would
// have run.
BranchRun RunSample(const SampleRequest& sample, LivenessLimits liveness, ExecutionBackend& backend);

// Where branches run when not on the search's own backend: worker processes (cli/), or a test's
// stand-in. The search tells it what it will run next, in order, so that it can start those
// executions ahead; Run then only waits for the one asked.
class BranchRunner {
 public:
  virtual ~BranchRunner() = default;
  // Runs (or collects, when it ran ahead) the execution of `branch`, whose serial number is
  // `branch.serial`. `retry`: the branch diverged once and runs again (never ahead).
  virtual BranchRun Run(const Branch& branch, bool retry) = 0;
  // The branches that will run next, in order (the first is the next one asked), as far as the
  // search knows them today: each will be asked, unless the search ends first or drops it.
  virtual void Upcoming(const std::vector<const Branch*>& next) { (void)next; }
  // A branch announced in Upcoming that will never be asked (--max-executions left it out).
  virtual void Dropped(uint64_t serial) { (void)serial; }
  // What the search makes of a run it takes: a branch for each of its alternatives that keeps the
  // bound (what the run's own branch spent plus the alternative's cost, at most `bound`), unless
  // the state cache prunes it or --max-executions leaves it out. A runner may run such children
  // before they are announced, on a worker that has nothing announced to run. Nullopt: the
  // children are not known this way (a shard deals them).
  virtual void ChildrenWithin(std::optional<uint32_t> bound) { (void)bound; }

  // The same for the samples of pct and random, known by their index. A runner that cannot run
  // them says so in the run's error.
  virtual BranchRun RunSample(const SampleRequest& sample, bool retry);
  virtual void UpcomingSamples(const std::vector<SampleRequest>& next) { (void)next; }

  // The search that announced the work so far is over (a bug's minimization starts, or ends and
  // the sampled search goes on): none of it will be asked, and serials start again.
  virtual void Forget() {}
};

}  // namespace chess::search
