// A bounded search whose branches run ahead, out of order — as worker processes run them (-j) —
// comes to exactly what the search run one execution at a time comes to: the same executions,
// schedules, state-cache pruning, coverage, bugs (the same first one, at the same execution
// number) and schedule digests; with --max-executions, --keep-going, delay bounding and shards.
#include "search/branch_run.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::search {
namespace {

using test_support::Alternation;
using test_support::Independent;
using test_support::ModelBackend;
using test_support::ModelProgram;
using test_support::Step;

// Runs every branch it is told of at once, the last announced first (the most out of order a
// pool of workers could be), and hands each over when the search asks for it.
class AheadRunner final : public BranchRunner {
 public:
  AheadRunner(const ModelProgram& program, const ExplorerOptions& options, StrategyKind bounding)
      : backend_(program), options_(options), bounding_(bounding) {}

  BranchRun Run(const Branch& branch, bool retry) override {
    ++asked_;
    if (!retry) {
      if (auto ran = ran_.find(branch.serial); ran != ran_.end()) {
        BranchRun run = std::move(ran->second);
        ran_.erase(ran);
        ++taken_from_ahead_;
        return run;
      }
    }
    return RunBranch(branch, options_.liveness, options_.state_cache, bounding_, backend_);
  }

  void Upcoming(const std::vector<const Branch*>& next) override {
    for (auto item = next.rbegin(); item != next.rend(); ++item) {
      if (ran_.count((*item)->serial) == 0) {
        ran_.emplace((*item)->serial, RunBranch(**item, options_.liveness, options_.state_cache, bounding_, backend_));
      }
    }
  }

  void Dropped(uint64_t serial) override {
    ++dropped_;
    ran_.erase(serial);
  }

  uint64_t asked_ = 0;
  uint64_t taken_from_ahead_ = 0;
  uint64_t dropped_ = 0;

 private:
  ModelBackend backend_;
  ExplorerOptions options_;
  StrategyKind bounding_;
  std::map<uint64_t, BranchRun> ran_;
};

class AheadBackend final : public ExecutionBackend {
 public:
  AheadBackend(const ModelProgram& program, const ExplorerOptions& options)
      : inner_(program), runner_(program, options, options.strategy) {}
  ExecutionSummary Execute(Strategy& strategy) override { return inner_.Execute(strategy); }
  BranchRunner* Branches() override { return &runner_; }

  ModelBackend inner_;
  AheadRunner runner_;
};

void ExpectSame(const ExplorationResult& one, const ExplorationResult& ahead) {
  EXPECT_EQ(one.executions, ahead.executions);
  EXPECT_EQ(one.coverage.schedules, ahead.coverage.schedules);
  EXPECT_EQ(one.coverage.cache_pruned, ahead.coverage.cache_pruned);
  EXPECT_EQ(one.coverage.pruned, ahead.coverage.pruned);
  EXPECT_EQ(one.coverage.complete, ahead.coverage.complete);
  EXPECT_EQ(one.coverage.bound_completed, ahead.coverage.bound_completed);
  EXPECT_EQ(one.end, ahead.end);
  EXPECT_EQ(one.bound, ahead.bound);
  EXPECT_EQ(one.schedules_digest, ahead.schedules_digest);
  EXPECT_EQ(one.replayed_prefixes, ahead.replayed_prefixes);
  ASSERT_EQ(one.bugs.size(), ahead.bugs.size());
  for (size_t i = 0; i < one.bugs.size(); ++i) {
    EXPECT_EQ(one.bugs[i].execution, ahead.bugs[i].execution);
    EXPECT_EQ(one.bugs[i].preemptions, ahead.bugs[i].preemptions);
    EXPECT_EQ(ScheduleDigest(one.bugs[i].schedule), ScheduleDigest(ahead.bugs[i].schedule));
  }
}

// Three threads on their own counters and one shared: states repeat, so the cache prunes.
ModelProgram Counters() {
  ModelProgram program;
  for (uint64_t t = 0; t < 3; ++t) {
    std::vector<Step> steps(3);
    steps[0].resource = 10 + t;
    steps[1].resource = 1;
    steps[2].resource = 10 + t;
    program.threads.push_back(steps);
  }
  return program;
}

// Counters, failing whenever thread 2 takes the shared counter first.
ModelProgram CountersWithBugs() {
  ModelProgram program = Counters();
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>& order) {
    for (const auto& [thread, step] : order) {
      if (step == 1) return thread == 2 ? Outcome::kSignal : Outcome::kOk;
    }
    return Outcome::kOk;
  };
  return program;
}

struct Case {
  const char* name;
  ModelProgram program;
  ExplorerOptions options;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (StrategyKind strategy : {StrategyKind::kPb, StrategyKind::kDb}) {
    for (bool cache : {false, true}) {
      ExplorerOptions options;
      options.strategy = strategy;
      options.state_cache = cache;
      options.preemption_bound = 3;
      options.delay_bound = 3;
      cases.push_back({"independent 3x2", Independent(3, 2), options});
      cases.push_back({"counters", Counters(), options});
      cases.push_back({"alternation", Alternation(), options});
      ExplorerOptions keep_going = options;
      keep_going.keep_going = true;
      cases.push_back({"counters with bugs, keep going", CountersWithBugs(), keep_going});
      cases.push_back({"counters with bugs, first", CountersWithBugs(), options});
      ExplorerOptions limited = options;
      limited.max_executions = 40;
      cases.push_back({"independent 3x3, 40 executions", Independent(3, 3), limited});
      ExplorerOptions shard = options;
      shard.shard = Shard{2, 3};
      cases.push_back({"counters, shard 2/3", Counters(), shard});
    }
  }
  return cases;
}

TEST(BranchRunnerTest, BranchesRunAheadAndOutOfOrderComeToWhatOneAtATimeComesTo) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(c.name) + ", " + std::string(StrategyName(c.options.strategy)) +
                 (c.options.state_cache ? ", state cache" : ", no state cache"));
    ModelBackend plain(c.program);
    const ExplorationResult one = Explorer(c.options, plain).Explore();
    AheadBackend ahead(c.program, c.options);
    const ExplorationResult parallel = Explorer(c.options, ahead).Explore();
    ExpectSame(one, parallel);
    // It did run ahead: nearly every execution the search took in had run before it was asked.
    EXPECT_GT(ahead.runner_.taken_from_ahead_ * 2, ahead.runner_.asked_);
  }
}

TEST(BranchRunnerTest, TheStateCachePrunesAtCommitAsItDidDuringTheExecution) {
  // With the cache, fewer executions than without, the same schedules' coverage statement.
  ExplorerOptions options;
  options.preemption_bound = 2;
  ModelBackend cached(Counters());
  const ExplorationResult with_cache = Explorer(options, cached).Explore();
  options.state_cache = false;
  ModelBackend uncached(Counters());
  const ExplorationResult without = Explorer(options, uncached).Explore();
  EXPECT_LT(with_cache.executions, without.executions);
  EXPECT_GT(with_cache.coverage.cache_pruned, 0u);
  EXPECT_TRUE(with_cache.coverage.complete);
  EXPECT_EQ(with_cache.coverage.bound_completed, without.coverage.bound_completed);
}

TEST(BranchRunnerTest, WorkLeftOutForTheLimitIsToldToTheRunner) {
  ExplorerOptions options;
  options.state_cache = false;
  options.max_executions = 10;
  AheadBackend ahead(Independent(3, 3), options);
  const ExplorationResult result = Explorer(options, ahead).Explore();
  EXPECT_EQ(result.executions, 10u);
  EXPECT_EQ(result.end, SearchEnd::kMaxExecutions);
  EXPECT_GT(ahead.runner_.dropped_, 0u);
}

}  // namespace
}  // namespace chess::search
