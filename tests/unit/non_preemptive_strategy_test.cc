#include "search/non_preemptive_strategy.h"

#include <gtest/gtest.h>

#include <vector>

namespace chess::search {
namespace {

ThreadId T(uint32_t v) { return ThreadId{v}; }

ThreadId Pick(const std::vector<ThreadId>& enabled, std::optional<ThreadId> current, StopReason stop) {
  NonPreemptiveStrategy strategy;
  SchedulingContext context;
  context.enabled = enabled;
  context.current = current;
  context.current_stop = stop;
  return strategy.PickThread(context);
}

TEST(NonPreemptiveStrategy, FirstDecisionPicksTheOldestThread) {
  EXPECT_EQ(Pick({T(0), T(2)}, std::nullopt, StopReason::kReachedPoint), T(0));
}

TEST(NonPreemptiveStrategy, CurrentThreadContinuesAtAPoint) {
  EXPECT_EQ(Pick({T(0), T(1), T(2)}, T(1), StopReason::kReachedPoint), T(1));
}

TEST(NonPreemptiveStrategy, YieldPassesTheTurnToTheNextThreadInCreationOrder) {
  EXPECT_EQ(Pick({T(0), T(1), T(2)}, T(1), StopReason::kYielded), T(2));
  EXPECT_EQ(Pick({T(0), T(1), T(2)}, T(2), StopReason::kYielded), T(0));
}

TEST(NonPreemptiveStrategy, BlockedOrExitedThreadHandsOverCyclically) {
  EXPECT_EQ(Pick({T(0), T(3)}, T(1), StopReason::kBlocked), T(3));
  EXPECT_EQ(Pick({T(0), T(1)}, T(5), StopReason::kExited), T(0));
}

TEST(NonPreemptiveStrategy, YieldingAloneKeepsRunning) {
  EXPECT_EQ(Pick({T(4)}, T(4), StopReason::kYielded), T(4));
}

// Two polite spinners and a worker: every thread gets a turn within one round of yields.
TEST(NonPreemptiveStrategy, YieldRoundRobinIsFair) {
  NonPreemptiveStrategy strategy;
  std::vector<ThreadId> enabled = {T(0), T(1), T(2)};
  std::vector<int> turns(3, 0);
  ThreadId current = T(0);
  for (int i = 0; i < 30; ++i) {
    SchedulingContext context;
    context.enabled = enabled;
    context.current = current;
    context.current_stop = StopReason::kYielded;
    current = strategy.PickThread(context);
    ++turns[current.value];
  }
  EXPECT_EQ(turns, (std::vector<int>{10, 10, 10}));
}

}  // namespace
}  // namespace chess::search
