// -j's worker processes, over model programs: a search whose branches run in forked workers
// (through the pipes and the codec) comes to what the search in one process comes to — with
// and without the state cache, with a bug, with --max-executions — and a worker that dies ends
// the search as an error that says so, never as a hang.
#include "cli/worker_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::cli {
namespace {

using search::ExplorationResult;
using search::ExplorerOptions;
using search::test_support::Alternation;
using search::test_support::Independent;
using search::test_support::ModelBackend;
using search::test_support::ModelProgram;

class PooledBackend final : public search::ExecutionBackend {
 public:
  explicit PooledBackend(WorkerPool& pool) : pool_(pool) {}
  search::ExecutionSummary Execute(search::Strategy&) override {
    ADD_FAILURE() << "every execution should run in a worker";
    return {};
  }
  search::BranchRunner* Branches() override { return &pool_; }

 private:
  WorkerPool& pool_;
};

// Workers that run `program`; `dies_after`: the number of branches each serves before it exits.
std::unique_ptr<WorkerPool> Workers(const ModelProgram& program, const ExplorerOptions& options, size_t count,
                                    uint64_t* taken, std::optional<int> dies_after = std::nullopt) {
  auto started = WorkerPool::Start(
      count,
      [&](int requests, int runs, size_t) {
        ModelBackend backend(program);
        int served = 0;
        const int status = ServeBranches(
            requests, runs,
            [&](const search::Branch& branch) {
              if (dies_after && served++ == *dies_after) _exit(3);
              return search::RunBranch(branch, options.liveness, options.state_cache,
                                       search::BranchBounding(options.strategy), backend);
            },
            [&](const search::SampleRequest& sample) {
              if (dies_after && served++ == *dies_after) _exit(3);
              return search::RunSample(sample, options.liveness, backend);
            });
        _exit(status);
      },
      [taken](const search::BranchRun&) { ++*taken; });
  EXPECT_TRUE(started) << (started ? "" : started.error());
  return started ? std::move(*started) : nullptr;
}

void ExpectSameSearch(const ModelProgram& program, const ExplorerOptions& options) {
  ModelBackend plain(program);
  const ExplorationResult one = search::Explorer(options, plain).Explore();
  uint64_t taken = 0;
  std::unique_ptr<WorkerPool> pool = Workers(program, options, 2, &taken);
  ASSERT_NE(pool, nullptr);
  PooledBackend pooled(*pool);
  const ExplorationResult parallel = search::Explorer(options, pooled).Explore();
  search::test_support::ExpectSameExploration(one, parallel);
  // Every execution the search took came through the pool, each taken once.
  EXPECT_EQ(taken, parallel.executions + parallel.replayed_prefixes);
}

TEST(WorkerPoolTest, TwoWorkerProcessesComeToWhatOneProcessComesTo) {
  ExplorerOptions options;
  options.state_cache = false;
  ExpectSameSearch(Independent(3, 2), options);
  options.state_cache = true;
  ExpectSameSearch(Independent(3, 2), options);
  ExpectSameSearch(Alternation(), options);
  options.max_executions = 17;
  ExpectSameSearch(Independent(3, 3), options);
  options = ExplorerOptions{};
  options.strategy = search::StrategyKind::kDb;
  ExpectSameSearch(Independent(3, 2), options);
}

// pct's and random's samples run ahead in the workers and are taken in their order; a bug found
// by a sample is minimized by a bounded search on the same workers (what ran ahead for the one
// is never taken for the other), and --keep-going's samples go on after it.
TEST(WorkerPoolTest, SamplesOfPctAndRandomComeToWhatOneProcessDraws) {
  for (const search::StrategyKind kind : {search::StrategyKind::kPct, search::StrategyKind::kRandom}) {
    SCOPED_TRACE(search::StrategyName(kind));
    ExplorerOptions options;
    options.strategy = kind;
    options.seed = 7;
    options.max_executions = 60;
    ExpectSameSearch(Independent(3, 2), options);
    options.keep_going = true;
    ExpectSameSearch(Alternation(), options);
    options.keep_going = false;
    options.max_executions = 500;
    ExpectSameSearch(Alternation(), options);
    options.minimize = false;
    ExpectSameSearch(Alternation(), options);
  }
}

// The workers of a shard run only its own samples, and PCT's first sample once for its length.
TEST(WorkerPoolTest, AShardsSamplesRunOnItsWorkers) {
  ExplorerOptions options;
  options.strategy = search::StrategyKind::kPct;
  options.max_executions = 40;
  options.shard = search::Shard{2, 3};
  ExpectSameSearch(Independent(3, 2), options);
}

// Workers with nothing announced to run run the children of a run the search has not taken in
// yet; when the search announces one of them under its own serial, that run is the one it gets —
// the same run the branch makes anywhere — and nothing is run twice.
TEST(WorkerPoolTest, IdleWorkersRunTheChildrenOfARunBeforeTheSearchAnnouncesThem) {
  ExplorerOptions options;
  options.state_cache = false;
  const ModelProgram program = Independent(2, 2);
  uint64_t taken = 0;
  std::unique_ptr<WorkerPool> pool = Workers(program, options, 2, &taken);
  ASSERT_NE(pool, nullptr);
  pool->ChildrenWithin(2);
  search::Branch root;
  const search::BranchRun first = pool->Run(root, false);
  ASSERT_GE(first.alternatives.size(), 2u);
  pool->Upcoming({});  // nothing announced: both workers take a child of the first run
  EXPECT_EQ(pool->Speculations(), 2u);
  EXPECT_EQ(pool->Unused(), 2u);  // run, not taken yet
  pool->ChildrenWithin(std::nullopt);  // no more of it: what follows is only the two children

  ModelBackend here(program);
  auto path = std::make_shared<const search::ExecutionPath>(search::ExecutionPath{1, first.decisions, {}});
  std::vector<search::Branch> children;
  // As the search keeps them: the last alternative is run first.
  for (auto alternative = first.alternatives.rbegin(); alternative != first.alternatives.rend(); ++alternative) {
    search::Branch child{path, alternative->decision, alternative->choice, alternative->cost, 1, std::nullopt,
                         children.size() + 1};
    children.push_back(child);
  }
  std::vector<const search::Branch*> announced;
  for (const search::Branch& child : children) announced.push_back(&child);
  pool->Upcoming(announced);
  for (const search::Branch& child : children) {
    const search::BranchRun pooled = pool->Run(child, false);
    const search::BranchRun local =
        search::RunBranch(child, options.liveness, false, search::StrategyKind::kPb, here);
    EXPECT_EQ(search::ScheduleDigest(pooled.decisions), search::ScheduleDigest(local.decisions));
    EXPECT_EQ(pooled.alternatives.size(), local.alternatives.size());
  }
  // Both speculations were taken as the announced children, and nothing else ran.
  EXPECT_EQ(pool->Speculations(), 2u);
  EXPECT_EQ(pool->Unused(), 0u);
  EXPECT_EQ(taken, 1 + children.size());
}

// Running a branch of pb or a sample of random.
TEST(WorkerPoolTest, AWorkerThatDiesEndsTheSearchAsAnErrorThatSaysSo) {
  for (const search::StrategyKind kind : {search::StrategyKind::kPb, search::StrategyKind::kRandom}) {
    SCOPED_TRACE(search::StrategyName(kind));
    ExplorerOptions options;
    options.strategy = kind;
    options.state_cache = false;
    options.max_executions = 50;
    uint64_t taken = 0;
    std::unique_ptr<WorkerPool> pool = Workers(Independent(3, 3), options, 2, &taken, 3);
    ASSERT_NE(pool, nullptr);
    PooledBackend pooled(*pool);
    const ExplorationResult result = search::Explorer(options, pooled).Explore();
    EXPECT_EQ(result.end, search::SearchEnd::kError);
    ASSERT_TRUE(result.error.has_value());
    EXPECT_NE(result.error->message.find("a worker of -j (pid "), std::string::npos) << result.error->message;
    EXPECT_NE(result.error->message.find(") died "), std::string::npos) << result.error->message;
    EXPECT_NE(result.error->message.find("exited with status 3"), std::string::npos) << result.error->message;
  }
}

}  // namespace
}  // namespace chess::cli
