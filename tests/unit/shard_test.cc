// --shard I/N over in-memory model programs: the shards of a search together run exactly the
// schedules the whole search runs (executions add up, the digests of their schedules sum to the
// whole's), each finishes its part of every round, the first execution is replayed where another
// shard owns it, a bug is reported by the one shard that owns its schedule, and sampled
// strategies deal sample numbers. And `I/N` is parsed strictly.
#include "search/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "search/bounded_search.h"
#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::search {
namespace {

using test_support::ModelBackend;
using test_support::Alternation;
using test_support::Independent;
using test_support::ModelProgram;
using test_support::Step;


ExplorationResult Search(const ModelProgram& program, ExplorerOptions options, Shard shard = {}) {
  ModelBackend backend(program);
  options.shard = shard;
  return Explorer(options, backend).Explore();
}

struct Union {
  uint64_t executions = 0;
  uint64_t schedules = 0;
  uint64_t digest = 0;
  uint64_t replayed = 0;
};

Union Shards(const ModelProgram& program, const ExplorerOptions& options, uint32_t count) {
  Union all;
  for (uint32_t index = 1; index <= count; ++index) {
    const ExplorationResult part = Search(program, options, Shard{index, count});
    all.executions += part.executions;
    all.schedules += part.coverage.schedules;
    all.digest += part.schedules_digest;
    all.replayed += part.replayed_prefixes;
  }
  return all;
}

TEST(ShardParse, TakesIOverNAndSaysWhatIsWrongOtherwise) {
  ASSERT_TRUE(ParseShard("1/3").shard);
  EXPECT_EQ(ParseShard("2/3").shard->index, 2u);
  EXPECT_EQ(ParseShard("2/3").shard->count, 3u);
  EXPECT_TRUE(ParseShard("1/1").shard);
  for (const char* bad : {"4/3", "0/3", "x/y", "3", "1/0", "-1/3", " 1/3", "1/3 ", "1/3x", "/3", "1/", "1//3",
                          "1/2000000"}) {
    const ShardParse parsed = ParseShard(bad);
    EXPECT_FALSE(parsed.shard) << bad;
    EXPECT_NE(parsed.error.find(std::string("`") + bad + "`"), std::string::npos) << parsed.error;
  }
  EXPECT_NE(ParseShard("0/3").error.find("numbered from 1"), std::string::npos);
  EXPECT_NE(ParseShard("x/y").error.find("whole numbers"), std::string::npos);
}

TEST(ShardParse, DealsRanksRoundRobin) {
  const Shard second{2, 3};
  EXPECT_FALSE(second.Owns(0));
  EXPECT_TRUE(second.Owns(1));
  EXPECT_TRUE(second.Owns(4));
  EXPECT_TRUE(Shard{}.Owns(17));
}

TEST(ScheduleDigest, NamesTheSchedule) {
  RecordedDecision a;
  a.picked = ThreadId{0};
  RecordedDecision b;
  b.picked = ThreadId{1};
  EXPECT_EQ(ScheduleDigest({a, b}), ScheduleDigest({a, b}));
  EXPECT_NE(ScheduleDigest({a, b}), ScheduleDigest({b, a}));
  EXPECT_NE(ScheduleDigest({a}), ScheduleDigest({a, a}));
  RecordedDecision fired = b;
  fired.fired_early = true;
  EXPECT_NE(ScheduleDigest({a, b}), ScheduleDigest({a, fired}));
}

// The partition, over spaces of 6 to thousands of schedules, for shard counts that divide them
// evenly and not, and more shards than the first execution has alternatives (the trunk then
// goes a level deeper).
TEST(ShardedBoundedSearch, ShardsTogetherRunExactlyTheWholeSearch) {
  struct Case {
    size_t threads, steps;
    uint32_t bound;
  };
  for (const auto& [strategy, space] : {std::pair{StrategyKind::kPb, Case{2, 2, 2}}, {StrategyKind::kPb, Case{2, 3, 4}},
                                        {StrategyKind::kPb, Case{3, 2, 3}}, {StrategyKind::kPb, Case{3, 3, 2}},
                                        {StrategyKind::kPb, Case{4, 2, 2}}, {StrategyKind::kDb, Case{3, 2, 3}},
                                        {StrategyKind::kDb, Case{3, 3, 2}}, {StrategyKind::kDb, Case{2, 3, 5}}}) {
    ExplorerOptions options;
    options.strategy = strategy;
    options.state_cache = false;
    options.preemption_bound = space.bound;
    options.delay_bound = space.bound;
    const ModelProgram program = Independent(space.threads, space.steps);
    const ExplorationResult whole = Search(program, options);
    ASSERT_TRUE(whole.coverage.complete);
    for (uint32_t count : {1u, 2u, 3u, 4u, 7u, 40u}) {
      SCOPED_TRACE(std::string(StrategyName(strategy)) + " " + std::to_string(space.threads) + "x" + std::to_string(space.steps) + " bound " +
                   std::to_string(space.bound) + ", " + std::to_string(count) + " shards");
      const Union all = Shards(program, options, count);
      EXPECT_EQ(all.executions, whole.executions);
      EXPECT_EQ(all.schedules, whole.coverage.schedules);
      EXPECT_EQ(all.digest, whole.schedules_digest);
      // Each covers its part. A part may end sooner than the whole (none of its schedules needs
      // more preemptions: exhausted); together they say what the whole search says.
      std::optional<uint32_t> bound_completed;
      SearchEnd end = SearchEnd::kExhausted;
      for (uint32_t index = 1; index <= count; ++index) {
        const ExplorationResult part = Search(program, options, Shard{index, count});
        EXPECT_TRUE(part.coverage.complete) << index;
        ASSERT_TRUE(part.coverage.bound_completed) << index;
        bound_completed = std::max(bound_completed.value_or(0), *part.coverage.bound_completed);
        if (part.end == SearchEnd::kBoundExplored) end = part.end;
      }
      EXPECT_EQ(bound_completed, whole.coverage.bound_completed);
      EXPECT_EQ(end, whole.end);
    }
  }
}

TEST(ShardedBoundedSearch, TheTrunkIsTheFirstExecutionUnlessItOffersTooFewToDeal) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  // 3 threads of 3 steps: the first execution has plenty of alternatives for 2 shards.
  const ExplorationResult wide = Search(Independent(3, 3), options, Shard{2, 2});
  EXPECT_EQ(wide.split_depth, 1u);
  EXPECT_EQ(wide.replayed_prefixes, 1u);  // shard 1 owns the first execution
  EXPECT_EQ(Search(Independent(3, 3), options, Shard{1, 2}).replayed_prefixes, 0u);
  // 2 threads of 2 steps give the first execution few alternatives: 40 shards deal deeper.
  const ExplorationResult narrow = Search(Independent(2, 2), options, Shard{5, 40});
  EXPECT_GT(narrow.split_depth, 1u);
  EXPECT_LE(narrow.split_depth, BoundedSearch::kMaxSplitDepth);
  EXPECT_GT(narrow.replayed_prefixes, 1u);
}


TEST(ShardedBoundedSearch, ABugIsFoundByTheShardThatOwnsItsSchedule) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  const ExplorationResult whole = Search(Alternation(), options);
  ASSERT_EQ(whole.bugs.size(), 1u);
  for (uint32_t count : {2u, 3u, 5u}) {
    int finders = 0;
    for (uint32_t index = 1; index <= count; ++index) {
      const ExplorationResult part = Search(Alternation(), options, Shard{index, count});
      if (part.bugs.empty()) {
        EXPECT_TRUE(part.coverage.complete);
        continue;
      }
      ++finders;
      EXPECT_EQ(part.bugs[0].preemptions, 2u);
      EXPECT_EQ(ScheduleDigest(part.bugs[0].schedule), ScheduleDigest(whole.bugs[0].schedule));
    }
    EXPECT_EQ(finders, 1) << count << " shards";
  }
}

TEST(ShardedBoundedSearch, AFailingFirstExecutionIsReportedByTheShardThatOwnsIt) {
  ModelProgram program = Independent(2, 2);
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>&) { return Outcome::kSignal; };
  ExplorerOptions options;
  options.state_cache = false;
  const ExplorationResult first = Search(program, options, Shard{1, 2});
  ASSERT_EQ(first.bugs.size(), 1u);
  EXPECT_EQ(first.bugs[0].execution, 1u);
  // The other shard replays it without reporting it, and goes on to its own part (whose
  // schedules fail too).
  const ExplorationResult second = Search(program, options, Shard{2, 2});
  EXPECT_EQ(second.replayed_prefixes, 1u);
  ASSERT_EQ(second.bugs.size(), 1u);
  EXPECT_NE(ScheduleDigest(second.bugs[0].schedule), ScheduleDigest(first.bugs[0].schedule));
}

// Narrow (2 threads of 2 steps) with 40 shards: the trunk goes below the first execution. One
// of its items diverging twice in a shard that does not own it drops what it leads to from that
// shard's deal: every later rank moves, so the shard's part is not covered and it must say so.
TEST(ShardedBoundedSearch, ATrunkItemGivenUpLeavesThePartUncovered) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  options.shard = Shard{5, 40};
  ModelBackend backend(Independent(2, 2));
  // The second trunk execution (owned by shard 2) and its retry diverge.
  backend.diverge_at_ = [](uint64_t execution, uint64_t decision) -> std::optional<bool> {
    return (execution == 2 || execution == 3) && decision == 1;
  };
  const ExplorationResult part = Explorer(options, backend).Explore();
  EXPECT_FALSE(part.coverage.complete);
  EXPECT_EQ(part.end, SearchEnd::kPruned);
  EXPECT_EQ(part.coverage.pruned, 1u);
}

TEST(ShardedBoundedSearch, ShardsAgreeOnTheirTrunk) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  std::optional<uint64_t> trunk;
  for (uint32_t index = 1; index <= 40; ++index) {
    const ExplorationResult part = Search(Independent(2, 2), options, Shard{index, 40});
    EXPECT_NE(part.trunk_digest, 0u);
    if (!trunk) trunk = part.trunk_digest;
    EXPECT_EQ(part.trunk_digest, *trunk) << index;
  }
}

// Work of a later round left out for --max-executions: the search stops at the limit, it does
// not claim the bound.
TEST(ShardedBoundedSearch, DroppedLaterRoundsAreNoCoverage) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  for (uint64_t limit = 1; limit < 14; ++limit) {  // 14 schedules have ≤ 2 preemptions
    options.max_executions = limit;
    const ExplorationResult result = Search(Independent(2, 3), options);
    EXPECT_EQ(result.end, SearchEnd::kMaxExecutions) << limit;
    EXPECT_FALSE(result.coverage.complete) << limit;
  }
}

TEST(ShardedBoundedSearch, MaxExecutionsLimitsEachShardsOwnExecutions) {
  ExplorerOptions options;
  options.state_cache = false;
  options.preemption_bound = 2;
  options.max_executions = 10;
  for (uint32_t index = 1; index <= 3; ++index) {
    const ExplorationResult part = Search(Independent(3, 3), options, Shard{index, 3});
    // Work that would not fit is left out when it is found, so a shard may end a little short.
    EXPECT_LE(part.executions, 10u);
    EXPECT_GE(part.executions, 8u);
    EXPECT_EQ(part.end, SearchEnd::kMaxExecutions);
    EXPECT_FALSE(part.coverage.complete);
  }
}

// With state caching each shard prunes at the states it visited itself: together they run at
// least what the whole search runs, and every schedule they skip starts from a state one of
// them searched. The bug is found all the same.
TEST(ShardedBoundedSearch, WithStateCachingShardsRunAtLeastTheWholeSearch) {
  ExplorerOptions options;
  options.preemption_bound = 2;
  const ExplorationResult whole = Search(Independent(3, 3), options);
  const Union all = Shards(Independent(3, 3), options, 3);
  EXPECT_GE(all.executions, whole.executions);
  int finders = 0;
  for (uint32_t index = 1; index <= 3; ++index) finders += Search(Alternation(), options, Shard{index, 3}).bugs.size();
  EXPECT_GE(finders, 1);
}

TEST(ShardedSampledSearch, ShardsDealSampleNumbers) {
  for (StrategyKind kind : {StrategyKind::kPct, StrategyKind::kRandom}) {
    ExplorerOptions options;
    options.strategy = kind;
    options.seed = 7;
    options.max_executions = 4 * 3;
    const ExplorationResult whole = Search(Independent(3, 3), options);
    options.max_executions = 4;  // each shard's own
    const Union all = Shards(Independent(3, 3), options, 3);
    EXPECT_EQ(all.executions, whole.executions) << StrategyName(kind);
    EXPECT_EQ(all.digest, whole.schedules_digest) << StrategyName(kind);
    // PCT's k comes from the first sample, which every shard runs.
    EXPECT_EQ(all.replayed, kind == StrategyKind::kPct ? 2u : 0u) << StrategyName(kind);
  }
}

TEST(ShardedSampledSearch, ASampleDependsOnItsNumberAloneNotOnTheOnesBeforeIt) {
  // Shard 2/4 runs sample 0 (for PCT's k), then its own: 1 and 5. Each must be the schedule the
  // whole search ran as that sample.
  using Order = std::vector<std::pair<uint32_t, size_t>>;
  for (StrategyKind kind : {StrategyKind::kPct, StrategyKind::kRandom}) {
    std::vector<Order> whole_orders;
    std::vector<Order> shard_orders;
    ModelProgram program = Independent(3, 3);
    ExplorerOptions options;
    options.strategy = kind;
    options.seed = 3;
    options.max_executions = 6;
    program.judge = [&whole_orders](const Order& order) {
      whole_orders.push_back(order);
      return Outcome::kOk;
    };
    Search(program, options);
    program.judge = [&shard_orders](const Order& order) {
      shard_orders.push_back(order);
      return Outcome::kOk;
    };
    options.max_executions = 2;
    Search(program, options, Shard{2, 4});
    ASSERT_EQ(whole_orders.size(), 6u);
    const std::vector<Order> expected =
        kind == StrategyKind::kPct ? std::vector<Order>{whole_orders[0], whole_orders[1], whole_orders[5]}
                                   : std::vector<Order>{whole_orders[1], whole_orders[5]};
    EXPECT_EQ(shard_orders, expected) << StrategyName(kind);
  }
}

}  // namespace
}  // namespace chess::search
