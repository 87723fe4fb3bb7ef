#include "supervisor/handlers/futex_table.h"

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

FutexKey Private(uint64_t address) { return {FutexKey::Kind::kPrivate, 1, 0, address}; }
FutexKey Shared(uint64_t address) { return {FutexKey::Kind::kSharedPrivateMemory, 1, 0, address}; }

FutexWaiter W(pid_t tid, uint32_t bitset = ~0u) {
  FutexWaiter waiter;
  waiter.tid = tid;
  waiter.bitset = bitset;
  return waiter;
}

TEST(FutexTable, WakesOldestFirstAndOnlyAsManyAsAsked) {
  FutexTable table;
  for (pid_t tid : {10, 11, 12}) table.Enqueue(Private(0x1000), W(tid));
  auto woken = table.Wake(Private(0x1000), 2);
  ASSERT_EQ(woken.size(), 2u);
  EXPECT_EQ(woken[0].tid, 10);
  EXPECT_EQ(woken[1].tid, 11);
  EXPECT_EQ(table.Waiters(Private(0x1000)), 1u);
  EXPECT_FALSE(table.IsWaiting(10));
  EXPECT_TRUE(table.IsWaiting(12));
}

TEST(FutexTable, PrivateAndSharedWaitsOnOneAddressNeverMeet) {
  FutexTable table;
  table.Enqueue(Shared(0x2000), W(20));
  EXPECT_TRUE(table.Wake(Private(0x2000), 1).empty());
  EXPECT_EQ(table.Wake(Shared(0x2000), 1).size(), 1u);
}

TEST(FutexTable, BitsetsSelectWaiters) {
  FutexTable table;
  table.Enqueue(Private(0x3000), W(30, 0x1));
  table.Enqueue(Private(0x3000), W(31, 0x2));
  auto woken = table.Wake(Private(0x3000), 10, 0x2);
  ASSERT_EQ(woken.size(), 1u);
  EXPECT_EQ(woken[0].tid, 31);
}

TEST(FutexTable, RequeueMovesWaitersInOrder) {
  FutexTable table;
  for (pid_t tid : {40, 41, 42}) table.Enqueue(Private(0x4000), W(tid));
  auto moved = table.Requeue(Private(0x4000), Private(0x5000), 2);
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(table.Waiters(Private(0x4000)), 1u);
  EXPECT_EQ(table.Waiters(Private(0x5000)), 2u);
  EXPECT_EQ(table.Front(Private(0x5000))->tid, 40);
  EXPECT_EQ(table.KeyOf(41), Private(0x5000));
}

TEST(FutexTable, WaitvWaiterLeavesEveryQueueWhenWokenThroughOne) {
  FutexTable table;
  FutexWaiter first = W(50);
  FutexWaiter second = W(50);
  second.index = 1;
  table.Enqueue(Private(0x6000), first);
  table.Enqueue(Private(0x7000), second);
  auto woken = table.Wake(Private(0x7000), 1);
  ASSERT_EQ(woken.size(), 1u);
  EXPECT_EQ(woken[0].index, 1u);
  EXPECT_EQ(table.Waiters(Private(0x6000)), 0u);
  EXPECT_FALSE(table.IsWaiting(50));
}

TEST(FutexTable, RemoveDropsATimedOutWaiter) {
  FutexTable table;
  table.Enqueue(Private(0x8000), W(60));
  table.Enqueue(Private(0x8000), W(61));
  table.Remove(60);
  EXPECT_EQ(table.Front(Private(0x8000))->tid, 61);
}

}  // namespace
}  // namespace chess::supervisor
