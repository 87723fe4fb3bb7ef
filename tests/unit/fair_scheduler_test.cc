// FairScheduler: the PLDI'08 priority rules. Checked against the invariants of
// research/search-and-peers.md §A.2.2: some enabled thread is always schedulable; without yields
// nothing ever loses priority; a spin-and-yield loop lets the thread it waits for run after at
// most one yield (eager E sets) or two (lazy).
#include "search/fair_scheduler.h"

#include <gtest/gtest.h>

#include <vector>

#include "search/random.h"

namespace chess::search {
namespace {

ThreadId T(uint32_t v) { return ThreadId{v}; }

TEST(FairSchedulerTest, EveryThreadIsSchedulableBeforeAnyYield) {
  FairScheduler fair;
  const std::vector<ThreadId> both{T(0), T(1)};
  fair.Stepped(T(0), both, both, false);
  fair.Stepped(T(1), both, both, false);
  EXPECT_EQ(fair.Schedulable(both), both);
}

TEST(FairSchedulerTest, AYieldingThreadWaitsForTheThreadsItKeptWaiting) {
  FairScheduler fair;
  const std::vector<ThreadId> both{T(0), T(1)};
  fair.Stepped(T(0), both, both, true);  // eager: E(0) = {0, 1} since creation; 1 never ran
  EXPECT_EQ(fair.Schedulable(both), std::vector<ThreadId>{T(1)});
  EXPECT_EQ(fair.LowerThan(T(0)), std::vector<ThreadId>{T(1)});
  fair.Stepped(T(1), both, both, false);  // 1 ran: the priority is gone
  EXPECT_EQ(fair.Schedulable(both), both);
}

TEST(FairSchedulerTest, ADisabledThreadDoesNotBlockTheYielder) {
  FairScheduler fair;
  const std::vector<ThreadId> both{T(0), T(1)};
  const std::vector<ThreadId> only0{T(0)};
  fair.Stepped(T(0), both, both, true);
  // 1 is now blocked: 0 may run although it has lower priority than 1.
  EXPECT_EQ(fair.Schedulable(only0), only0);
}

TEST(FairSchedulerTest, LazyInitialisationNeedsOneMoreYield) {
  FairScheduler fair(FairScheduler::Init::kLazy);
  const std::vector<ThreadId> both{T(0), T(1)};
  fair.Stepped(T(0), both, both, true);
  EXPECT_EQ(fair.Schedulable(both), both);
  fair.Stepped(T(0), both, both, true);
  EXPECT_EQ(fair.Schedulable(both), std::vector<ThreadId>{T(1)});
}

// T0: while (!flag) { read flag; yield; }   T1: flag = 1; exit.   The chooser always prefers T0.
// Returns the yields T0 made before T1 got to run.
int YieldsBeforeTheSetterRuns(FairScheduler::Init init) {
  FairScheduler fair(init);
  const std::vector<ThreadId> both{T(0), T(1)};
  int yields = 0;
  bool at_yield = false;  // T0's next step: false = read flag, true = yield
  for (int step = 0; step < 100; ++step) {
    const std::vector<ThreadId> schedulable = fair.Schedulable(both);
    if (schedulable.front() != T(0)) return yields;
    fair.Stepped(T(0), both, both, at_yield);
    yields += at_yield ? 1 : 0;
    at_yield = !at_yield;
  }
  return -1;  // starved
}

TEST(FairSchedulerTest, SpinAndYieldLetsTheSetterRunAfterOneYieldWhenEager) {
  EXPECT_EQ(YieldsBeforeTheSetterRuns(FairScheduler::Init::kEager), 1);
}

TEST(FairSchedulerTest, SpinAndYieldLetsTheSetterRunAfterTwoYieldsWhenLazy) {
  EXPECT_EQ(YieldsBeforeTheSetterRuns(FairScheduler::Init::kLazy), 2);
}

// Random programs: threads are enabled and disabled at random, steps yield at random, and an
// adversary picks among the schedulable threads. Some enabled thread must always be
// schedulable, and without yields no priority may ever appear.
void Simulate(FairScheduler::Init init, bool with_yields) {
  SeededRandom random(with_yields ? 7 : 8);
  for (int run = 0; run < 2000; ++run) {
    FairScheduler fair(init);
    const uint32_t n = 2 + static_cast<uint32_t>(random.Next() % 5);
    std::vector<bool> enabled(n, true);
    auto Enabled = [&] {
      std::vector<ThreadId> ids;
      for (uint32_t t = 0; t < n; ++t) {
        if (enabled[t]) ids.push_back(T(t));
      }
      return ids;
    };
    for (int step = 0; step < 60; ++step) {
      const std::vector<ThreadId> before = Enabled();
      if (before.empty()) break;
      const std::vector<ThreadId> schedulable = fair.Schedulable(before);
      ASSERT_FALSE(schedulable.empty()) << "run " << run << " step " << step;
      if (!with_yields) {
        ASSERT_EQ(schedulable, before);
      }
      const ThreadId picked = schedulable[random.Next() % schedulable.size()];
      // The step may disable or enable others, or disable the thread itself (it blocks).
      for (uint32_t t = 0; t < n; ++t) {
        if (random.Next() % 6 == 0) enabled[t] = !enabled[t];
      }
      if (std::none_of(enabled.begin(), enabled.end(), [](bool e) { return e; })) enabled[picked.value] = true;
      const bool yielded = with_yields && random.Next() % 3 == 0;
      fair.Stepped(picked, before, Enabled(), yielded);
      for (uint32_t t = 0; t < n && !with_yields; ++t) {
        ASSERT_TRUE(fair.LowerThan(T(t)).empty());
      }
    }
  }
}

TEST(FairSchedulerTest, RandomProgramsAlwaysHaveASchedulableThreadEager) { Simulate(FairScheduler::Init::kEager, true); }
TEST(FairSchedulerTest, RandomProgramsAlwaysHaveASchedulableThreadLazy) { Simulate(FairScheduler::Init::kLazy, true); }
TEST(FairSchedulerTest, WithoutYieldsNothingLosesPriority) { Simulate(FairScheduler::Init::kEager, false); }

}  // namespace
}  // namespace chess::search
