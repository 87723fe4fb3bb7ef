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
};

// Runs `branch` once on `backend`: the execution a BoundedSearch would have run, with the states
// recorded when `record_states` (state caching on) — what a worker of a parallel search does.
BranchRun RunBranch(const Branch& branch, LivenessLimits liveness, bool record_states, StrategyKind bounding,
                    ExecutionBackend& backend);

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
};

}  // namespace chess::search
