#include "search/critical_pair.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

constexpr ThreadId kOne{1};
constexpr ThreadId kTwo{2};
constexpr ThreadId kThree{3};
constexpr uint64_t kHead = 0x4040;

SchedulingPoint Atomic(ThreadId thread, uint64_t address, uint64_t instruction) {
  SchedulingPoint point{thread, OpKind::kAtomic, address, true};
  point.instruction = instruction;
  return point;
}

RecordedDecision Decision(std::optional<ThreadId> current, SchedulingPoint point, ThreadId picked) {
  RecordedDecision decision;
  decision.current = current;
  decision.point = point;
  decision.picked = picked;
  return decision;
}

TEST(CriticalPair, APreemptedAtomicAndTheOtherThreadsAtomicOnTheSameMemoryThatRanFirst) {
  const std::vector<RecordedDecision> schedule = {
      Decision(std::nullopt, {}, kOne),
      Decision(kOne, Atomic(kOne, kHead, 0x1010), kTwo),            // 1: preempted before its CAS
      Decision(kTwo, Atomic(kTwo, 0x5000, 0x2000), kTwo),           // elsewhere: no pair
      Decision(kTwo, Atomic(kTwo, kHead, 0x2020), kTwo),            // on the head, and goes on
      Decision(kTwo, {kTwo, OpKind::kThreadExit}, kOne),
  };
  const auto pair = FindCriticalPair(schedule, {1});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->preemption, 1u);
  EXPECT_EQ(pair->waited, kOne);
  EXPECT_EQ(pair->waited_at.instruction, 0x1010u);
  EXPECT_EQ(pair->went_first, kTwo);
  EXPECT_EQ(pair->went_first_at.instruction, 0x2020u);
}

TEST(CriticalPair, NoneWhenThePreemptedThreadRanBeforeTheOtherOrTheMemoryDiffers) {
  // Thread 2 reaches the head but thread 1 is picked before it runs its instruction.
  const std::vector<RecordedDecision> first_after_all = {
      Decision(kOne, Atomic(kOne, kHead, 0x1010), kTwo),
      Decision(kTwo, Atomic(kTwo, kHead, 0x2020), kOne),
  };
  EXPECT_FALSE(FindCriticalPair(first_after_all, {0}).has_value());
  const std::vector<RecordedDecision> other_memory = {
      Decision(kOne, Atomic(kOne, kHead, 0x1010), kTwo),
      Decision(kTwo, Atomic(kTwo, 0x5000, 0x2020), kTwo),
  };
  EXPECT_FALSE(FindCriticalPair(other_memory, {0}).has_value());
  // A preemption at a syscall names no pair.
  const std::vector<RecordedDecision> at_syscall = {
      Decision(kOne, {kOne, OpKind::kSyncOp, kHead}, kTwo),
      Decision(kTwo, Atomic(kTwo, kHead, 0x2020), kTwo),
  };
  EXPECT_FALSE(FindCriticalPair(at_syscall, {0}).has_value());
}

TEST(CriticalPair, TheLatestPreemptionWithAPairAndAThirdThreadPickedLater) {
  const std::vector<RecordedDecision> schedule = {
      Decision(kOne, Atomic(kOne, kHead, 0x1010), kTwo),     // 0: a pair follows (thread 3)
      Decision(kTwo, Atomic(kTwo, 0x7000, 0x2000), kThree),  // 1: thread 2 preempted, no pair
      Decision(kThree, Atomic(kThree, kHead, 0x3030), kTwo),
      Decision(kTwo, {kTwo, OpKind::kThreadExit}, kThree),   // thread 3 runs its instruction now
  };
  const auto pair = FindCriticalPair(schedule, {0, 1});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->preemption, 0u);
  EXPECT_EQ(pair->went_first, kThree);
  EXPECT_EQ(pair->went_first_at.instruction, 0x3030u);
}

SchedulingPoint RacyAccess(ThreadId thread, uint64_t address, uint64_t instruction, bool is_write) {
  SchedulingPoint point{thread, OpKind::kRacyAccess, address, is_write};
  point.instruction = instruction;
  return point;
}

TEST(CriticalPair, APreemptedRacingAccessAndTheOtherThreadsAccessThatRanFirst) {
  constexpr uint64_t kClaimed = 0x404c3c;
  const std::vector<RecordedDecision> schedule = {
      Decision(std::nullopt, {}, kOne),
      Decision(kOne, RacyAccess(kOne, kClaimed, 0x1165, false), kTwo),  // 1: stopped before its read
      Decision(kTwo, RacyAccess(kTwo, kClaimed, 0x1180, true), kTwo),   // the other's write, goes on
      Decision(kTwo, {kTwo, OpKind::kThreadExit}, kOne),
  };
  const auto pair = FindCriticalPair(schedule, {1});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->waited, kOne);
  EXPECT_EQ(pair->waited_at.op, OpKind::kRacyAccess);
  EXPECT_EQ(pair->waited_at.instruction, 0x1165u);
  EXPECT_EQ(pair->went_first, kTwo);
  EXPECT_EQ(pair->went_first_at.instruction, 0x1180u);
  EXPECT_TRUE(pair->went_first_at.is_write);
}

TEST(CriticalPair, AnAtomicAndARacingAccessOnTheSameMemoryArePaired) {
  const std::vector<RecordedDecision> schedule = {
      Decision(kOne, RacyAccess(kOne, kHead, 0x1010, false), kTwo),
      Decision(kTwo, Atomic(kTwo, kHead, 0x2020), kTwo),
      Decision(kTwo, {kTwo, OpKind::kThreadExit}, kOne),
  };
  const auto pair = FindCriticalPair(schedule, {0});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->waited_at.op, OpKind::kRacyAccess);
  EXPECT_EQ(pair->went_first_at.op, OpKind::kAtomic);
  // A racing access on other memory is no pair.
  const std::vector<RecordedDecision> elsewhere = {
      Decision(kOne, RacyAccess(kOne, kHead, 0x1010, false), kTwo),
      Decision(kTwo, RacyAccess(kTwo, 0x5000, 0x2020, true), kTwo),
  };
  EXPECT_FALSE(FindCriticalPair(elsewhere, {0}).has_value());
}

}  // namespace
}  // namespace chess::search
