// DeadlockFuzzer's directed execution, driven decision by decision: a thread at a step of the
// predicted cycle is paused while the others run, all are let go together once every step is
// taken, a pause gives way when nothing else can run, and a thread whose locks do not chain with
// the paused ones is not paused.
#include "search/directed_deadlock.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace chess::search {
namespace {

constexpr uint64_t kA = 0xa0;
constexpr uint64_t kB = 0xb0;

// The cycle A→B (thread 1: holds A taken at site 1, asks B at site 2), B→A (thread 2: holds B
// taken at 3, asks A at 4). Heap locks unless `fixed`.
PredictedCycle AbbaCycle() {
  PredictedCycle cycle;
  cycle.steps.push_back({1, {{kA, LockMode::kExclusive, 1}}, kB, LockMode::kExclusive, 2});
  cycle.steps.push_back({2, {{kB, LockMode::kExclusive, 3}}, kA, LockMode::kExclusive, 4});
  return cycle;
}

class FakeLocks final : public LockRequests {
 public:
  std::optional<LockRequest> PendingOf(ThreadId thread) override {
    auto found = pending.find(thread.value);
    if (found == pending.end()) return std::nullopt;
    return LockRequest{found->second, {}};
  }
  std::string Name(uint64_t) override { return {}; }
  std::map<uint32_t, LockDependency> pending;
};

class DirectedDeadlockTest : public testing::Test {
 protected:
  // `current` stopped at a sync op (asking what `locks` says) and `enabled` can run: the pick.
  ThreadId Decide(DirectedDeadlock& strategy, uint32_t current, std::vector<ThreadId> enabled,
                  StopReason stop = StopReason::kReachedPoint) {
    enabled_ = std::move(enabled);
    SchedulingContext context;
    context.enabled = enabled_;
    context.current = ThreadId{current};
    context.current_stop = stop;
    context.point.thread = ThreadId{current};
    context.point.op = OpKind::kSyncOp;
    context.locks = &locks_;
    return strategy.PickThread(context);
  }

  FakeLocks locks_;
  std::vector<ThreadId> enabled_;
};

TEST_F(DirectedDeadlockTest, PausesEachStepAndLetsThemGoTogether) {
  DirectedDeadlock strategy(AbbaCycle(), {}, 7, 1, {});
  // Thread 1 holds A and asks for B: the cycle's first step. It is paused; thread 2 runs.
  locks_.pending[1] = {1, {{kA, LockMode::kExclusive, 1}}, kB, LockMode::kExclusive, 2};
  EXPECT_EQ(Decide(strategy, 1, {ThreadId{1}, ThreadId{2}}).value, 2u);
  EXPECT_FALSE(strategy.Released());
  // Thread 2 takes B (no step: it holds nothing), goes on, then asks for A holding B.
  locks_.pending[2] = {2, {}, kB, LockMode::kExclusive, 3};
  EXPECT_EQ(Decide(strategy, 2, {ThreadId{1}, ThreadId{2}}).value, 2u);
  locks_.pending[2] = {2, {{kB, LockMode::kExclusive, 3}}, kA, LockMode::kExclusive, 4};
  Decide(strategy, 2, {ThreadId{1}, ThreadId{2}});
  EXPECT_TRUE(strategy.Released());
}

TEST_F(DirectedDeadlockTest, APausedThreadGoesOnWhenNothingElseCanRun) {
  DirectedDeadlock strategy(AbbaCycle(), {}, 7, 1, {});
  locks_.pending[1] = {1, {{kA, LockMode::kExclusive, 1}}, kB, LockMode::kExclusive, 2};
  EXPECT_EQ(Decide(strategy, 1, {ThreadId{1}, ThreadId{2}}).value, 2u);
  // Thread 2 blocks elsewhere: only thread 1, paused, could run, and it does.
  locks_.pending.erase(2);
  EXPECT_EQ(Decide(strategy, 2, {ThreadId{1}, ThreadId{3}}, StopReason::kBlocked).value, 3u);
  EXPECT_EQ(Decide(strategy, 3, {ThreadId{1}, ThreadId{3}}).value, 3u);
  EXPECT_EQ(Decide(strategy, 3, {ThreadId{1}}, StopReason::kExited).value, 1u);
  EXPECT_FALSE(strategy.Released());
}

TEST_F(DirectedDeadlockTest, AThreadWhoseLocksDoNotChainIsNotPaused) {
  DirectedDeadlock strategy(AbbaCycle(), {}, 7, 1, {});
  locks_.pending[1] = {1, {{kA, LockMode::kExclusive, 1}}, kB, LockMode::kExclusive, 2};
  EXPECT_EQ(Decide(strategy, 1, {ThreadId{1}, ThreadId{2}}).value, 2u);
  // At the second step's sites, but with other locks (another account's pair): no deadlock with
  // thread 1 can come of pausing it, so it runs on.
  locks_.pending[2] = {2, {{kB + 1, LockMode::kExclusive, 3}}, kA + 1, LockMode::kExclusive, 4};
  EXPECT_EQ(Decide(strategy, 2, {ThreadId{1}, ThreadId{2}}).value, 2u);
  EXPECT_FALSE(strategy.Released());
}

TEST_F(DirectedDeadlockTest, AFixedAddressLockMustBeTheSameLock) {
  std::map<uint64_t, LockKind> kinds{{kA, LockKind{false, true}}, {kB, LockKind{false, true}}};
  DirectedDeadlock strategy(AbbaCycle(), kinds, 7, 1, {});
  // The same sites, but a static lock other than the cycle's: not its step.
  locks_.pending[1] = {1, {{kA + 8, LockMode::kExclusive, 1}}, kB, LockMode::kExclusive, 2};
  EXPECT_EQ(Decide(strategy, 1, {ThreadId{1}, ThreadId{2}}).value, 1u);
}

}  // namespace
}  // namespace chess::search
