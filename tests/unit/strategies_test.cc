// The search's other powers over the model program: random and PCT choices that depend only on
// the seed, state caching that lowers the execution count without losing any outcome on
// race-free programs (for pb and db), minimization of a randomized strategy's bug to its fewest
// preemptions, deadlines fired early as choices that cost a preemption (a delay), and the
// portfolio.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "search/explorer.h"
#include "search/random.h"
#include "search/sampled_search.h"
#include "tests/unit/model_program.h"

namespace chess::search {
namespace {

using test_support::kTimedOut;
using test_support::ModelBackend;
using test_support::ModelProgram;
using test_support::Step;
using Order = std::vector<std::pair<uint32_t, size_t>>;

size_t Position(const Order& order, uint32_t thread, size_t step) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i].first == thread && (order[i].second & ~kTimedOut) == step) return i;
  }
  return order.size();
}

// Two threads of three steps on one shared object; it fails when their first two steps
// alternate, 0 1 0 1, which takes two preemptions (0 → 1 after 0's first step, back after 1's).
ModelProgram TwoPreemptionBug() {
  ModelProgram program;
  program.threads.assign(2, std::vector<Step>(3, Step{Step::kWork, 0, 1}));
  program.judge = [](const Order& order) {
    const size_t a0 = Position(order, 0, 0), b0 = Position(order, 1, 0), a1 = Position(order, 0, 1);
    const size_t b1 = Position(order, 1, 1);
    return a0 < b0 && b0 < a1 && a1 < b1 ? Outcome::kExitStatus : Outcome::kOk;
  };
  return program;
}

// Every execution's order of steps, through the judge.
struct Recorded {
  std::vector<Order> orders;
};

ModelProgram Recording(ModelProgram program, Recorded& recorded) {
  auto judge = program.judge;
  program.judge = [judge, &recorded](const Order& order) {
    recorded.orders.push_back(order);
    return judge ? judge(order) : Outcome::kOk;
  };
  return program;
}

std::vector<Order> Sampled(StrategyKind kind, uint64_t seed, ModelProgram program) {
  Recorded recorded;
  ModelBackend backend(Recording(std::move(program), recorded));
  ExplorerOptions options;
  options.strategy = kind;
  options.seed = seed;
  options.max_executions = 40;
  const ExplorationResult result = Explorer(options, backend).Explore();
  EXPECT_EQ(result.end, SearchEnd::kMaxExecutions);
  EXPECT_EQ(result.coverage.sampled, 40u);
  EXPECT_FALSE(result.coverage.complete);
  return recorded.orders;
}

ModelProgram ThreeThreads() {
  ModelProgram program;
  program.threads.assign(3, std::vector<Step>(4, Step{Step::kWork, 0, 1}));
  return program;
}

TEST(StrategiesTest, RandomAndPctChoicesDependOnlyOnTheSeed) {
  for (StrategyKind kind : {StrategyKind::kRandom, StrategyKind::kPct}) {
    const std::vector<Order> first = Sampled(kind, 7, ThreeThreads());
    EXPECT_EQ(first, Sampled(kind, 7, ThreeThreads())) << StrategyName(kind);
    EXPECT_NE(first, Sampled(kind, 8, ThreeThreads())) << StrategyName(kind);
    // Samples differ from one another: more than a handful of distinct orders in 40.
    EXPECT_GT(std::set<Order>(first.begin(), first.end()).size(), 5u) << StrategyName(kind);
  }
  EXPECT_NE(SampledSearch::SampleSeed(StrategyKind::kPct, 1, 0), SampledSearch::SampleSeed(StrategyKind::kRandom, 1, 0));
}

TEST(StrategiesTest, PctWithDepthOneRunsEachThreadToItsEnd) {
  // Depth 1: no change point, so every execution runs the threads one after the other in a
  // random priority order; only switches at exits.
  Recorded recorded;
  ModelBackend recording(Recording(ThreeThreads(), recorded));
  ExplorerOptions options;
  options.strategy = StrategyKind::kPct;
  options.pct_depth = 1;
  options.max_executions = 30;
  Explorer(options, recording).Explore();
  std::set<std::vector<uint32_t>> thread_orders;
  for (const Order& order : recorded.orders) {
    std::vector<uint32_t> threads;
    for (auto [thread, step] : order) {
      if (threads.empty() || threads.back() != thread) threads.push_back(thread);
    }
    EXPECT_EQ(threads.size(), 3u);
    thread_orders.insert(threads);
  }
  EXPECT_GT(thread_orders.size(), 3u);  // of the 6 priority orders
}

TEST(StrategiesTest, PctAndRandomEndSpinAndYieldLoops) {
  // Thread 0 yields until thread 1 sets the flag: PCT drops a yielding thread below everyone,
  // fairness does the rest; no execution may reach the step limit.
  ModelProgram program;
  program.threads = {{Step{Step::kYield, 0}, Step{Step::kAwaitFlag, 0}}, {Step{Step::kWork}, Step{Step::kSetFlag, 0}}};
  for (StrategyKind kind : {StrategyKind::kRandom, StrategyKind::kPct}) {
    ModelBackend backend(program);
    ExplorerOptions options;
    options.strategy = kind;
    options.max_executions = 100;
    options.liveness.max_steps = 1000;
    const ExplorationResult result = Explorer(options, backend).Explore();
    EXPECT_EQ(result.step_limited, 0u) << StrategyName(kind);
    EXPECT_TRUE(result.bugs.empty()) << StrategyName(kind);
  }
}

TEST(StrategiesTest, EveryStrategyFindsTheTwoPreemptionBug) {
  for (StrategyKind kind :
       {StrategyKind::kPb, StrategyKind::kDb, StrategyKind::kRandom, StrategyKind::kPct, StrategyKind::kPortfolio}) {
    ModelBackend backend(TwoPreemptionBug());
    ExplorerOptions options;
    options.strategy = kind;
    options.max_executions = 1000;
    const ExplorationResult result = Explorer(options, backend).Explore();
    ASSERT_EQ(result.bugs.size(), 1u) << StrategyName(kind);
    EXPECT_EQ(result.end, SearchEnd::kBug);
    EXPECT_EQ(result.bugs[0].preemptions, 2u) << StrategyName(kind);
    if (kind != StrategyKind::kPortfolio) {
      EXPECT_EQ(result.bugs[0].found_by, kind);
    }
    // pb does not find it with one preemption.
    if (kind == StrategyKind::kPb) {
      ModelBackend bounded(TwoPreemptionBug());
      options.preemption_bound = 1;
      EXPECT_TRUE(Explorer(options, bounded).Explore().bugs.empty());
    }
  }
}

TEST(StrategiesTest, MinimizationFindsTheFewestPreemptions) {
  // A random walk's first failing sample, from a seed where it took more than two preemptions,
  // is searched again with pb: the reported schedule has exactly two.
  for (uint64_t seed = 0; seed < 64; ++seed) {
    ModelBackend unminimized_backend(TwoPreemptionBug());
    ExplorerOptions options;
    options.strategy = StrategyKind::kRandom;
    options.seed = seed;
    options.max_executions = 1000;
    options.minimize = false;
    const ExplorationResult unminimized = Explorer(options, unminimized_backend).Explore();
    ASSERT_EQ(unminimized.bugs.size(), 1u);
    if (unminimized.bugs[0].preemptions <= 2) continue;

    ModelBackend backend(TwoPreemptionBug());
    options.minimize = true;
    const ExplorationResult result = Explorer(options, backend).Explore();
    ASSERT_EQ(result.bugs.size(), 1u);
    const FoundBug& bug = result.bugs[0];
    EXPECT_EQ(bug.preemptions, 2u);
    EXPECT_EQ(bug.found_by, StrategyKind::kRandom);
    EXPECT_EQ(bug.execution_strategy, "pb");
    ASSERT_TRUE(bug.minimized_from);
    EXPECT_EQ(bug.minimized_from->preemptions, unminimized.bugs[0].preemptions);
    EXPECT_EQ(bug.minimized_from->execution, unminimized.bugs[0].execution);
    EXPECT_GT(result.minimizing, 0u);
    EXPECT_EQ(result.executions, unminimized.executions + result.minimizing);
    return;
  }
  FAIL() << "no seed below 64 gave a random sample with more than two preemptions";
}

// Independent threads: each works on its own object, so every interleaving reaches the same
// states; caching must cut the search down and still cover everything.
ModelProgram OwnObjects(size_t n, size_t k) {
  ModelProgram program;
  for (size_t t = 0; t < n; ++t) program.threads.emplace_back(k, Step{Step::kWork, 0, 100 + t});
  return program;
}

ExplorerOptions BoundedOptions(StrategyKind strategy, uint32_t bound) {
  ExplorerOptions options;
  options.strategy = strategy;
  (strategy == StrategyKind::kDb ? options.delay_bound : options.preemption_bound) = bound;
  return options;
}

ExplorationResult Search(ModelProgram program, bool cache, uint32_t bound, bool keep_going = false,
                         StrategyKind strategy = StrategyKind::kPb) {
  ModelBackend backend(std::move(program));
  ExplorerOptions options = BoundedOptions(strategy, bound);
  options.state_cache = cache;
  options.keep_going = keep_going;
  return Explorer(options, backend).Explore();
}

TEST(StrategiesTest, StateCachingLowersTheCountOnIndependentThreads) {
  const ExplorationResult plain = Search(OwnObjects(3, 3), false, 2);
  const ExplorationResult cached = Search(OwnObjects(3, 3), true, 2);
  EXPECT_TRUE(plain.coverage.complete);
  EXPECT_TRUE(cached.coverage.complete);
  EXPECT_EQ(plain.executions, 6u + 36u + 150u);
  EXPECT_LT(cached.executions, plain.executions);
  EXPECT_GT(cached.coverage.cache_pruned, 0u);
  EXPECT_EQ(plain.coverage.cache_pruned, 0u);
  // The more threads and preemptions, the more of the space is the same states again: measured
  // 2424 → 1380 for four threads, 552 → 272 with a bound of 3.
  EXPECT_LT(Search(OwnObjects(4, 3), true, 2).executions * 3, Search(OwnObjects(4, 3), false, 2).executions * 2);
  EXPECT_LT(Search(OwnObjects(3, 3), true, 3).executions * 3, Search(OwnObjects(3, 3), false, 3).executions * 2);
}

// For race-free programs (every interaction is a step on an object), the caching search reaches
// every per-object order of steps — every happens-before graph — that the plain one does.
std::set<std::map<uint64_t, std::vector<uint32_t>>> GraphsReached(const ModelProgram& program, bool cache,
                                                                  uint32_t bound,
                                                                  StrategyKind strategy = StrategyKind::kPb) {
  std::set<std::map<uint64_t, std::vector<uint32_t>>> graphs;
  ModelProgram observed = program;
  const ModelProgram original = program;
  observed.judge = [&graphs, original](const Order& order) {
    std::map<uint64_t, std::vector<uint32_t>> graph;
    for (auto [thread, step] : order) graph[original.threads[thread][step].resource].push_back(thread);
    graphs.insert(graph);
    return Outcome::kOk;
  };
  ModelBackend backend(observed);
  ExplorerOptions options = BoundedOptions(strategy, bound);
  options.state_cache = cache;
  EXPECT_TRUE(Explorer(options, backend).Explore().coverage.complete);
  return graphs;
}

TEST(StrategiesTest, StateCachingLosesNoOutcomeOnRaceFreePrograms) {
  SeededRandom random(2026);
  for (int trial = 0; trial < 60; ++trial) {
    ModelProgram program;
    const size_t threads = 2 + random.Next() % 2;
    for (size_t t = 0; t < threads; ++t) {
      std::vector<Step> steps;
      const size_t length = 1 + random.Next() % 4;
      // The first step runs from the thread's start: its own; the others touch shared objects.
      steps.push_back(Step{Step::kWork, 0, 100 + t});
      for (size_t s = 1; s < length; ++s) steps.push_back(Step{Step::kWork, 0, 1 + random.Next() % 3});
      program.threads.push_back(steps);
    }
    for (uint32_t bound : {0u, 1u, 2u}) {
      for (StrategyKind strategy : {StrategyKind::kPb, StrategyKind::kDb}) {
        EXPECT_EQ(GraphsReached(program, true, bound, strategy), GraphsReached(program, false, bound, strategy))
            << "trial " << trial << ", bound " << bound << ", " << StrategyName(strategy);
      }
    }
  }
  // And a bug on a shared object is found the same way, with the same preemptions.
  const ExplorationResult plain = Search(TwoPreemptionBug(), false, 2);
  const ExplorationResult cached = Search(TwoPreemptionBug(), true, 2);
  ASSERT_EQ(cached.bugs.size(), 1u);
  ASSERT_EQ(plain.bugs.size(), 1u);
  EXPECT_EQ(cached.bugs[0].preemptions, plain.bugs[0].preemptions);
  const ExplorationResult plain_db = Search(TwoPreemptionBug(), false, 2, false, StrategyKind::kDb);
  const ExplorationResult cached_db = Search(TwoPreemptionBug(), true, 2, false, StrategyKind::kDb);
  ASSERT_EQ(cached_db.bugs.size(), 1u);
  ASSERT_EQ(plain_db.bugs.size(), 1u);
  EXPECT_EQ(cached_db.bugs[0].delays, plain_db.bugs[0].delays);
}

// Delay bounding's cache prunes only where the same thread ran last: on the programs above it
// never hits (the states two executions share after their branch points are reached with another
// thread last). Threads that wait for a flag thread 0 sets converge: a blocked thread hands the
// round robin on, so different schedules meet in one state with the same thread last.
ModelProgram WaitsForThreadZero(SeededRandom& random) {
  ModelProgram program;
  const size_t threads = 3 + random.Next() % 2;
  for (size_t t = 0; t < threads; ++t) {
    std::vector<Step> steps{Step{Step::kWork, 0, 100 + t}};
    const size_t length = 2 + random.Next() % 3;
    for (size_t s = 1; s < length; ++s) {
      const bool waits = random.Next() % 4 == 0;
      if (t == 0 && s == 1) {
        steps.push_back(Step{Step::kSetFlag, 0, 7});
      } else if (t > 0 && waits) {
        steps.push_back(Step{Step::kAwaitFlag, 0, 7});
      } else {
        steps.push_back(Step{Step::kWork, 0, 1 + random.Next() % 2});
      }
    }
    program.threads.push_back(steps);
  }
  return program;
}

TEST(StrategiesTest, DelayBoundingsStateCachingLosesNoOutcome) {
  SeededRandom random(7);
  uint64_t pruned = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const ModelProgram program = WaitsForThreadZero(random);
    for (uint32_t bound : {2u, 3u}) {
      EXPECT_EQ(GraphsReached(program, true, bound, StrategyKind::kDb),
                GraphsReached(program, false, bound, StrategyKind::kDb))
          << "trial " << trial << ", bound " << bound;
      pruned += Search(program, true, bound, false, StrategyKind::kDb).coverage.cache_pruned;
    }
  }
  EXPECT_EQ(pruned, 65u);  // measured: in 22 of the 40 programs, all at bound 3
}

// Thread 0 waits for thread 1's flag with a deadline and fails if the wait times out; thread 1
// sets the flag after some work. Natively the flag always comes first.
ModelProgram TimedWaitBug() {
  ModelProgram program;
  program.threads = {{Step{Step::kTimedAwait, 0, 5}, Step{Step::kWork, 0, 5}},
                     {Step{Step::kWork, 0, 6}, Step{Step::kSetFlag, 0, 5}}};
  program.judge = [](const Order& order) {
    for (auto [thread, step] : order) {
      if (thread == 0 && (step & kTimedOut) != 0) return Outcome::kSignal;
    }
    return Outcome::kOk;
  };
  return program;
}

TEST(StrategiesTest, FiringADeadlineEarlyIsAChoiceThatCostsAPreemption) {
  ModelBackend none(TimedWaitBug());
  ExplorerOptions options;
  options.preemption_bound = 0;
  EXPECT_TRUE(Explorer(options, none).Explore().bugs.empty());

  ModelBackend no_delay(TimedWaitBug());
  EXPECT_TRUE(Explorer(BoundedOptions(StrategyKind::kDb, 0), no_delay).Explore().bugs.empty());

  for (StrategyKind kind : {StrategyKind::kPb, StrategyKind::kDb, StrategyKind::kPct, StrategyKind::kRandom}) {
    ModelBackend backend(TimedWaitBug());
    options.strategy = kind;
    options.preemption_bound = 1;
    options.delay_bound = 1;
    options.max_executions = 1000;
    const ExplorationResult result = Explorer(options, backend).Explore();
    ASSERT_EQ(result.bugs.size(), 1u) << StrategyName(kind);
    EXPECT_EQ(result.bugs[0].preemptions, 1u) << StrategyName(kind);
    if (kind == StrategyKind::kDb) {
      EXPECT_EQ(result.bugs[0].delays, 1u);
    }
    const auto& schedule = result.bugs[0].schedule;
    EXPECT_TRUE(std::any_of(schedule.begin(), schedule.end(), [](const RecordedDecision& d) { return d.fired_early; }));
  }
}

}  // namespace
}  // namespace chess::search
