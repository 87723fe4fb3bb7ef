// Explorer: iterative preemption and delay bounding with fairness over an in-memory model
// program (no ptrace). n threads of k independent steps must explore exactly the counts of
// research/search-and-peers.md §A.1 in each round (for delays: the counts of the definition,
// enumerated here); a spin-and-yield loop must end; divergent
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
using test_support::Alternation;
using test_support::Independent;
using test_support::ModelProgram;
using test_support::Step;
using test_support::T;



// Executions per round of pb (or db), by running each bound and taking differences.
std::vector<uint64_t> CountsPerBound(size_t n, size_t k, uint32_t max_bound, StrategyKind strategy = StrategyKind::kPb) {
  std::vector<uint64_t> counts;
  uint64_t previous = 0;
  for (uint32_t bound = 0; bound <= max_bound; ++bound) {
    ModelBackend backend(Independent(n, k));
    ExplorerOptions options;
    options.strategy = strategy;
    options.state_cache = false;  // the table counts every schedule
    (strategy == StrategyKind::kDb ? options.delay_bound : options.preemption_bound) = bound;
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

// Delays by their definition, over every interleaving of threads with `left` steps each: the
// default is the thread that ran last while it has steps left, else the next one after it in
// creation order (wrapping); running another costs the threads with steps left it skips on the
// way round. `histogram[d]`: the interleavings with d delays.
void CountDelays(std::vector<size_t>& left, size_t last, uint32_t delays, std::vector<uint64_t>& histogram) {
  uint32_t skipped = 0;
  for (size_t i = 0; i < left.size(); ++i) {
    const size_t thread = (last + i) % left.size();
    if (left[thread] == 0) continue;
    --left[thread];
    CountDelays(left, thread, delays + skipped, histogram);
    ++left[thread];
    ++skipped;
  }
  if (skipped == 0) {
    if (histogram.size() <= delays) histogram.resize(delays + 1, 0);
    ++histogram[delays];
  }
}

std::vector<uint64_t> DelaysByDefinition(size_t n, size_t k) {
  std::vector<size_t> left(n, k);
  std::vector<uint64_t> histogram;
  CountDelays(left, 0, 0, histogram);
  return histogram;
}

uint64_t Sum(const std::vector<uint64_t>& counts) {
  uint64_t sum = 0;
  for (uint64_t count : counts) sum += count;
  return sum;
}

TEST(ExplorerTest, DelayBoundingExploresTheTableCounts) {
  // 2×2: AABB; ABBA, BBAA; ABAB, BAAB; BABA. Every table sums to (nk)!/(k!)^n.
  EXPECT_EQ(CountsPerBound(2, 2, 3, StrategyKind::kDb), (std::vector<uint64_t>{1, 2, 2, 1}));
  EXPECT_EQ(CountsPerBound(2, 3, 5, StrategyKind::kDb), (std::vector<uint64_t>{1, 3, 6, 6, 3, 1}));
  EXPECT_EQ(CountsPerBound(3, 2, 9, StrategyKind::kDb), (std::vector<uint64_t>{1, 4, 10, 15, 19, 17, 13, 7, 3, 1}));
  EXPECT_EQ(Sum(DelaysByDefinition(2, 2)), 6u);
  EXPECT_EQ(Sum(DelaysByDefinition(2, 3)), 20u);
  EXPECT_EQ(Sum(DelaysByDefinition(3, 2)), 90u);
}

TEST(ExplorerTest, DelayCountsAreThoseOfTheDefinition) {
  for (auto [n, k] : {std::pair<size_t, size_t>{2, 2}, {2, 3}, {3, 2}, {2, 4}, {3, 3}, {4, 2}}) {
    const std::vector<uint64_t> defined = DelaysByDefinition(n, k);
    EXPECT_EQ(CountsPerBound(n, k, static_cast<uint32_t>(defined.size() - 1), StrategyKind::kDb), defined)
        << n << " threads of " << k << " steps";
  }
  EXPECT_EQ(Sum(DelaysByDefinition(3, 3)), 1680u);  // 9!/(3!)^3
  EXPECT_EQ(Sum(DelaysByDefinition(4, 2)), 2520u);  // 8!/(2!)^4
}

TEST(ExplorerTest, ZeroDelaysGiveOneScheduleForAnyNumberOfThreads) {
  for (size_t n = 1; n <= 5; ++n) EXPECT_EQ(CountsPerBound(n, 2, 0, StrategyKind::kDb).front(), 1u) << n << " threads";
}

TEST(ExplorerTest, DelayBoundingReportsExhaustionAndItsBound) {
  ModelBackend backend(Independent(2, 3));
  ExplorerOptions options;
  options.strategy = StrategyKind::kDb;
  options.state_cache = false;  // the table counts every schedule
  options.delay_bound = 20;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.end, SearchEnd::kExhausted);
  EXPECT_EQ(result.executions, 20u);
  EXPECT_EQ(result.coverage.strategy, StrategyKind::kDb);
  EXPECT_EQ(result.coverage.bound_completed, 5u);  // BBBAAA: 1 + 1 + 1 delays, and more for BABABA
}

TEST(ExplorerTest, DelayBoundingFindsABugWithTheFewestDelays) {
  // A1 B1 A2 B2: B instead of A (1), A instead of B (1), then B as A is done (0).
  ExplorerOptions options;
  options.strategy = StrategyKind::kDb;
  options.delay_bound = 1;
  ModelBackend too_few(Alternation());
  const ExplorationResult missed = Explorer(options, too_few).Explore();
  EXPECT_TRUE(missed.bugs.empty());
  EXPECT_TRUE(missed.coverage.complete);
  EXPECT_EQ(missed.executions, 3u);  // AABB; ABBA, BBAA

  options.delay_bound = 2;
  ModelBackend backend(Alternation());
  const ExplorationResult found = Explorer(options, backend).Explore();
  ASSERT_EQ(found.bugs.size(), 1u);
  EXPECT_EQ(found.bugs[0].found_by, StrategyKind::kDb);
  EXPECT_EQ(found.bugs[0].execution_strategy, "db");
  EXPECT_EQ(found.bugs[0].delays, 2u);
  EXPECT_EQ(found.bugs[0].preemptions, 2u);
  EXPECT_EQ(found.bugs[0].preemption_decisions, (std::vector<size_t>{1, 2}));
  EXPECT_GT(found.bugs[0].execution, 3u);  // every schedule with fewer delays came first
}

// n threads of one step each; the bug: thread n/2 runs last. One delay (run n/2 + 1 instead of
// n/2, and the round robin comes back to n/2 at the end), but pb's round 0 holds all n! orders,
// and its depth-first search changes the order of the last threads first.
ModelProgram MiddleThreadLast(size_t n) {
  ModelProgram program = Independent(n, 1);
  program.judge = [n](const std::vector<std::pair<uint32_t, size_t>>& order) {
    return order.back().first == n / 2 ? Outcome::kExitStatus : Outcome::kOk;
  };
  return program;
}

TEST(ExplorerTest, DelayBoundingFindsAOneDelayBugAmongManyThreadsWithinNPlusOneExecutions) {
  for (size_t n : {50, 80, 100}) {
    ModelBackend backend(MiddleThreadLast(n));
    ExplorerOptions options;
    options.strategy = StrategyKind::kDb;
    const ExplorationResult result = Explorer(options, backend).Explore();
    ASSERT_EQ(result.bugs.size(), 1u) << n << " threads";
    EXPECT_EQ(result.bugs[0].delays, 1u);
    // Round 0 is one execution; round 1 tries a delay at decision 0, 1, … in turn.
    EXPECT_EQ(result.bugs[0].execution, n / 2 + 2) << n << " threads";
    EXPECT_LE(result.bugs[0].execution, n + 1);

    ModelBackend pb_backend(MiddleThreadLast(n));
    options.strategy = StrategyKind::kPb;
    options.max_executions = 10 * n;
    EXPECT_TRUE(Explorer(options, pb_backend).Explore().bugs.empty()) << n << " threads";
  }
}

// n threads that work, yield at a barrier-like point, and work again: every switch after a yield
// is free for pb, so its round 0 holds many orders; db's holds one.
ModelProgram YieldInTheMiddle(size_t n) {
  ModelProgram program;
  program.threads.assign(n, std::vector<Step>{Step{}, Step{Step::kYield, 0}, Step{}});
  return program;
}

TEST(ExplorerTest, YieldsAreFreeForPbButNotForDb) {
  uint64_t factorial = 1;
  for (size_t n = 2; n <= 5; ++n) {
    factorial *= n;
    for (StrategyKind strategy : {StrategyKind::kPb, StrategyKind::kDb}) {
      ModelBackend backend(YieldInTheMiddle(n));
      ExplorerOptions options;
      options.strategy = strategy;
      options.state_cache = false;  // every schedule counts
      (strategy == StrategyKind::kDb ? options.delay_bound : options.preemption_bound) = 0;
      // pb: any order of the first halves (fairness keeps a thread that yielded from going on
      // until every other one ran), then any order of the second: (n!)^2 — 4, 36, 576, 14400.
      // db: the round robin.
      const uint64_t expected = strategy == StrategyKind::kDb ? 1 : factorial * factorial;
      EXPECT_EQ(Explorer(options, backend).Explore().executions, expected) << n << " threads, " << StrategyName(strategy);
    }
  }
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
