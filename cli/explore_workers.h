// SearchWorkers: explore -j's side in the search's process (docs/scale.md) — the worker
// processes, what each of them is (its CPU, its own namespaces, fork-server template, capture and
// backend) and what it runs (branches of pb and db, samples of pct and random), and the search's
// own CPU while they run. The search's executions run on Pool(); the pool itself is
// cli/worker_pool.h.
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cli/atomic_point_learning.h"
#include "cli/execution.h"
#include "cli/oracle_judge.h"
#include "cli/worker_pool.h"
#include "search/result.h"
#include "search/strategy.h"
#include "search/strategy_kind.h"

namespace chess::cli {

// How many workers `-j jobs` makes: `jobs`, or one per CPU chess-trace may use for 0.
// `visible_affinity`: the machine's mask as the supervisor found it before pinning (empty: read it).
size_t WorkerCount(size_t jobs, const std::vector<uint8_t>& visible_affinity);

class SearchWorkers {
 public:
  // What every worker's executions are: the search's, run elsewhere.
  struct Setup {
    PreparedExecution& execution;
    int expect_exit = 0;
    bool state_cache = true;
    search::StrategyKind strategy = search::StrategyKind::kPb;
    search::LivenessLimits liveness;
    const OracleJudge& judge;  // the search's, with --same-output's reference when it has one
    const std::optional<AtomicPointsSeen>& atomics;
  };

  // Forks `count` (> 1) workers; `taken` is told of each run as the search takes it in.
  static Result<std::unique_ptr<SearchWorkers>> Start(size_t count, const Setup& setup, WorkerPool::Taken taken);
  // The workers end (their trees, templates and namespaces with them), and the search's process
  // is pinned again where it was.
  ~SearchWorkers();
  SearchWorkers(const SearchWorkers&) = delete;
  SearchWorkers& operator=(const SearchWorkers&) = delete;

  WorkerPool& Pool() { return *pool_; }

 private:
  SearchWorkers() = default;
  // A worker's life: its CPU, namespaces, template and capture, then the work it is sent, until
  // the search closes its requests.
  [[noreturn]] static void WorkerMain(const Setup& setup, int requests, int runs, size_t index);

  std::unique_ptr<WorkerPool> pool_;
  std::optional<cpu_set_t> search_pin_;  // the CPU the search's process had before its workers
};

}  // namespace chess::cli
