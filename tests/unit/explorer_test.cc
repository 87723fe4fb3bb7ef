// Explorer: iterative preemption bounding with fairness over an in-memory model program (no
// ptrace). n threads of k independent steps must explore exactly the counts of
// research/search-and-peers.md §A.1 in each round; a spin-and-yield loop must end; divergent
// branches are retried once and then pruned; livelocks and good-Samaritan violations end an
// execution; bugs are found with the fewest preemptions and the same way every time.
#include "search/explorer.h"
#include "tests/unit/model_program.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <vector>

namespace chess::search {
namespace {

using test_support::ModelBackend;
using test_support::ModelProgram;
using test_support::Step;
using test_support::T;


ModelProgram Independent(size_t n, size_t k) {
  ModelProgram program;
  program.threads.assign(n, std::vector<Step>(k, Step{}));
  return program;
}

// Executions per round, by running each bound and taking differences.
std::vector<uint64_t> CountsPerBound(size_t n, size_t k, uint32_t max_bound) {
  std::vector<uint64_t> counts;
  uint64_t previous = 0;
  for (uint32_t bound = 0; bound <= max_bound; ++bound) {
    ModelBackend backend(Independent(n, k));
    ExplorerOptions options;
    options.state_cache = false;  // the table counts every schedule
    options.preemption_bound = bound;
    const ExplorationResult result = Explorer(options, backend).Explore();
    EXPECT_TRUE(result.coverage.complete);
    EXPECT_EQ(result.executions, result.coverage.schedules);
    counts.push_back(result.executions - previous);
    previous = result.executions;
  }
  return counts;
}

TEST(ExplorerTest, TwoThreadsOfThreeStepsExploreTheTableCounts) {
  EXPECT_EQ(CountsPerBound(2, 3, 4), (std::vector<uint64_t>{2, 4, 8, 4, 2}));
}

TEST(ExplorerTest, TableCountsForTwoAndThreeThreads) {
  EXPECT_EQ(CountsPerBound(2, 2, 2), (std::vector<uint64_t>{2, 2, 2}));
  EXPECT_EQ(CountsPerBound(2, 4, 6), (std::vector<uint64_t>{2, 6, 18, 18, 18, 6, 2}));
  EXPECT_EQ(CountsPerBound(3, 2, 3), (std::vector<uint64_t>{6, 18, 36, 30}));
  EXPECT_EQ(CountsPerBound(3, 3, 6), (std::vector<uint64_t>{6, 36, 150, 360, 510, 444, 174}));
}

TEST(ExplorerTest, ZeroPreemptionsGiveNFactorialSchedules) {
  for (size_t n = 1; n <= 5; ++n) {
    uint64_t factorial = 1;
    for (size_t i = 2; i <= n; ++i) factorial *= i;
    EXPECT_EQ(CountsPerBound(n, 2, 0).front(), factorial) << n << " threads";
  }
}

TEST(ExplorerTest, ReportsExhaustionWhenNoScheduleNeedsMorePreemptions) {
  ModelBackend backend(Independent(2, 3));
  ExplorerOptions options;
  options.state_cache = false;  // the table counts every schedule
  options.preemption_bound = 10;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.end, SearchEnd::kExhausted);
  EXPECT_EQ(result.executions, 20u);  // (2·3)! / (3!)^2
  EXPECT_EQ(result.coverage.bound_completed, 4u);

  ModelBackend bounded(Independent(2, 3));
  options.preemption_bound = 1;
  const ExplorationResult within = Explorer(options, bounded).Explore();
  EXPECT_EQ(within.end, SearchEnd::kBoundExplored);
  EXPECT_TRUE(within.coverage.complete);
  EXPECT_EQ(within.coverage.bound_completed, 1u);
}

// Thread 0: A1, A2; thread 1: B1, B2. The bug is the strict alternation A1 B1 A2 B2, which needs
// two preemptions.
ModelProgram Alternation() {
  ModelProgram program = Independent(2, 2);
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>& order) {
    const std::vector<std::pair<uint32_t, size_t>> bad{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    return order == bad ? Outcome::kSignal : Outcome::kOk;
  };
  return program;
}

TEST(ExplorerTest, FindsABugWithTheFewestPreemptionsAndTheSameWayEveryTime) {
  ExplorerOptions options;
  options.preemption_bound = 1;
  ModelBackend too_few(Alternation());
  const ExplorationResult missed = Explorer(options, too_few).Explore();
  EXPECT_TRUE(missed.bugs.empty());
  EXPECT_TRUE(missed.coverage.complete);

  options.preemption_bound = 2;
  uint64_t executions = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    ModelBackend backend(Alternation());
    const ExplorationResult found = Explorer(options, backend).Explore();
    ASSERT_EQ(found.bugs.size(), 1u);
    EXPECT_EQ(found.end, SearchEnd::kBug);
    EXPECT_EQ(found.bugs[0].preemptions, 2u);
    EXPECT_EQ(found.bugs[0].preemption_decisions.size(), 2u);
    EXPECT_EQ(found.bugs[0].schedule.size(), 4u);
    if (attempt == 0) executions = found.bugs[0].execution;
    EXPECT_EQ(found.bugs[0].execution, executions);
  }
  EXPECT_GT(executions, 4u);  // every schedule with fewer preemptions came first
}

TEST(ExplorerTest, KeepGoingCollectsDistinctBugsOnce) {
  ModelProgram program = Independent(2, 2);
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>& order) {
    return order.front().first == 1 ? Outcome::kExitStatus : Outcome::kOk;
  };
  ModelBackend backend(program);
  ExplorerOptions options;
  options.keep_going = true;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.bugs.size(), 1u);  // three schedules start with thread 1: one bug
  EXPECT_TRUE(result.coverage.complete);
  EXPECT_EQ(result.executions, 6u);
}

TEST(ExplorerTest, MaxExecutionsStopsTheSearchAndSaysSo) {
  ModelBackend backend(Independent(3, 3));
  ExplorerOptions options;
  options.max_executions = 10;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.end, SearchEnd::kMaxExecutions);
  EXPECT_EQ(result.executions, 10u);
  EXPECT_FALSE(result.coverage.complete);
  EXPECT_EQ(result.coverage.bound_completed, 0u);  // the 6 schedules of round 0 ran
}

TEST(ExplorerTest, StopHookEndsTheSearch) {
  ModelBackend backend(Independent(3, 3));
  int asked = 0;
  ExplorerHooks hooks;
  hooks.should_stop = [&asked] { return ++asked > 3; };
  const ExplorationResult result = Explorer(ExplorerOptions{}, backend).Explore(hooks);
  EXPECT_EQ(result.end, SearchEnd::kStopped);
  EXPECT_EQ(result.executions, 3u);
}

TEST(ExplorerTest, ADivergentBranchIsRetriedOnceThenPruned) {
  ModelBackend backend(Independent(2, 3));
  // Execution 3 and its retry diverge; nothing else does.
  backend.diverge_at_ = [](uint64_t execution, uint64_t decision) -> std::optional<bool> {
    return (execution == 3 || execution == 4) && decision == 1;
  };
  ExplorerOptions options;
  options.state_cache = false;  // the table counts every schedule
  options.preemption_bound = 4;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.coverage.pruned, 1u);
  EXPECT_EQ(result.divergences, 2u);
  EXPECT_LT(result.coverage.schedules, 20u);
  EXPECT_EQ(result.executions, result.coverage.schedules + 2);

  ModelBackend flaky(Independent(2, 3));
  flaky.diverge_at_ = [](uint64_t execution, uint64_t decision) -> std::optional<bool> {
    return execution == 3 && decision == 1;  // the retry follows
  };
  const ExplorationResult retried = Explorer(options, flaky).Explore();
  EXPECT_EQ(retried.coverage.pruned, 0u);
  EXPECT_EQ(retried.coverage.schedules, 20u);
  EXPECT_EQ(retried.executions, 21u);
}

TEST(ExplorerTest, SpinAndYieldTerminatesUnderFairness) {
  // Thread 0 yields until thread 1 sets the flag; a search that always prefers thread 0 still
  // ends every execution, and explores finitely many.
  ModelProgram program;
  program.threads = {{Step{Step::kYield, -1}}, {Step{Step::kSetFlag, 0}}};
  // Thread 0 waits for the flag with yields: model it as "yield until the flag is set".
  program.threads[0] = {Step{Step::kYield, 0}, Step{Step::kAwaitFlag, 0}};
  ModelBackend backend(program);
  ExplorerOptions options;
  options.preemption_bound = 2;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_TRUE(result.coverage.complete);
  EXPECT_TRUE(result.bugs.empty());
}

TEST(ExplorerTest, PoliteThreadsThatYieldForeverAreALivelock) {
  ModelProgram program;
  program.threads = {{Step{Step::kYield, -1}}, {Step{Step::kYield, -1}}};
  ModelBackend backend(program);
  ExplorerOptions options;
  options.preemption_bound = 0;
  options.liveness.max_steps = 200;
  const ExplorationResult result = Explorer(options, backend).Explore();
  ASSERT_EQ(result.bugs.size(), 1u);
  EXPECT_EQ(result.bugs[0].summary.outcome, Outcome::kLivelock);
  EXPECT_EQ(result.bugs[0].execution, 1u);
  EXPECT_EQ(result.bugs[0].preemptions, 0u);
}

TEST(ExplorerTest, ALongComputationIsAStepLimitNotABug) {
  ModelBackend backend(Independent(2, 400));
  ExplorerOptions options;
  options.preemption_bound = 0;
  options.liveness.max_steps = 100;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_TRUE(result.bugs.empty());
  EXPECT_EQ(result.step_limited, result.executions);
  EXPECT_GT(result.step_limited, 0u);
}

TEST(ExplorerTest, AThreadSpinningWhileOthersHadTheirTurnIsAGoodSamaritanViolation) {
  // Thread 0 spins on flag 1, which nobody sets; thread 1 yields forever.
  ModelProgram program;
  program.threads = {{Step{Step::kSpin, 1}}, {Step{Step::kYield, -1}}};
  ModelBackend backend(program);
  ExplorerOptions options;
  options.preemption_bound = 0;
  const ExplorationResult result = Explorer(options, backend).Explore();
  ASSERT_EQ(result.bugs.size(), 1u);
  EXPECT_EQ(result.bugs[0].summary.outcome, Outcome::kGoodSamaritan);

  // The same spinner whose flag gets set: it was interrupted, but it is no violation.
  ModelProgram fixed;
  fixed.threads = {{Step{Step::kSpin, 1}}, {Step{Step::kYield, 0}, Step{Step::kSetFlag, 1}}};
  ModelBackend fixed_backend(fixed);
  const ExplorationResult clean = Explorer(options, fixed_backend).Explore();
  EXPECT_TRUE(clean.bugs.empty());
  EXPECT_TRUE(clean.coverage.complete);
}

}  // namespace
}  // namespace chess::search
