// Data races from happens-before over same-object operations (search/race_detector.h).
#include "search/race_detector.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

constexpr ThreadId kMain{0}, kFirst{1}, kSecond{2};
constexpr uint64_t kLock = 0x5000, kFlag = 0x6000;

MemoryAccess Write(ThreadId thread, uint64_t address, uint64_t instruction, uint8_t size = 4) {
  return {.thread = thread, .address = address, .size = size, .is_write = true, .instruction = instruction};
}

MemoryAccess Read(ThreadId thread, uint64_t address, uint64_t instruction, uint8_t size = 4) {
  return {.thread = thread, .address = address, .size = size, .is_write = false, .instruction = instruction};
}

// main starts two threads, as the programs of the corpus do.
RaceDetector TwoThreads() {
  RaceDetector detector;
  detector.ThreadCreated(kMain, kFirst);
  detector.ThreadCreated(kMain, kSecond);
  return detector;
}

TEST(RaceDetector, UnorderedWritesRaceWhateverOrderTheyRanIn) {
  RaceDetector detector = TwoThreads();
  EXPECT_TRUE(detector.Accessed(Write(kFirst, 0x1000, 0x401000)).empty());
  const auto races = detector.Accessed(Write(kSecond, 0x1000, 0x401100));
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].earlier.thread, kFirst);
  EXPECT_EQ(races[0].earlier.instruction, 0x401000u);
  EXPECT_EQ(races[0].later.thread, kSecond);
  EXPECT_EQ(races[0].later.instruction, 0x401100u);
  // The same pair of instructions is reported once per execution, in either order.
  EXPECT_TRUE(detector.Accessed(Write(kFirst, 0x1000, 0x401000)).empty());
}

TEST(RaceDetector, OneInstructionRacesWithItselfInTwoThreads) {
  RaceDetector detector = TwoThreads();
  detector.Accessed(Read(kFirst, 0x1000, 0x401000));
  detector.Accessed(Write(kFirst, 0x1000, 0x401004));
  const auto races = detector.Accessed(Read(kSecond, 0x1000, 0x401000));
  ASSERT_EQ(races.size(), 1u);  // the second's read against the first's write
  EXPECT_TRUE(races[0].earlier.is_write);
  EXPECT_FALSE(races[0].later.is_write);
  EXPECT_EQ(detector.Accessed(Write(kSecond, 0x1000, 0x401004)).size(), 1u);  // write against write
}

TEST(RaceDetector, ALockOrdersTheCriticalSections) {
  RaceDetector detector = TwoThreads();
  detector.Synchronized(kFirst, kLock, Ordering::kAcquire);
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kLock, Ordering::kRelease);
  detector.Synchronized(kSecond, kLock, Ordering::kAcquire);
  EXPECT_TRUE(detector.Accessed(Write(kSecond, 0x1000, 0x401100)).empty());
  EXPECT_TRUE(detector.Accessed(Read(kSecond, 0x1000, 0x401104)).empty());
  detector.Synchronized(kSecond, kLock, Ordering::kRelease);
}

TEST(RaceDetector, AnotherObjectOrdersNothing) {
  RaceDetector detector = TwoThreads();
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kLock, Ordering::kRelease);
  detector.Synchronized(kSecond, kLock + 8, Ordering::kAcquire);
  EXPECT_EQ(detector.Accessed(Read(kSecond, 0x1000, 0x401100)).size(), 1u);
}

TEST(RaceDetector, AnAcquireBeforeTheReleaseOrdersNothing) {
  RaceDetector detector = TwoThreads();
  detector.Synchronized(kSecond, kFlag, Ordering::kAcquire);  // nothing published yet
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kFlag, Ordering::kRelease);
  EXPECT_EQ(detector.Accessed(Read(kSecond, 0x1000, 0x401100)).size(), 1u);
}

TEST(RaceDetector, AReleaseOrdersOnlyWhatCameBeforeIt) {
  RaceDetector detector = TwoThreads();
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kFlag, Ordering::kRelease);
  detector.Accessed(Write(kFirst, 0x2000, 0x401010));  // after the release: not published
  detector.Synchronized(kSecond, kFlag, Ordering::kAcquire);
  EXPECT_TRUE(detector.Accessed(Read(kSecond, 0x1000, 0x401100)).empty());
  EXPECT_EQ(detector.Accessed(Read(kSecond, 0x2000, 0x401104)).size(), 1u);
}

TEST(RaceDetector, AnObjectReleasedByTwoThreadsPublishesBoth) {
  RaceDetector detector = TwoThreads();
  const ThreadId third{3};
  detector.ThreadCreated(kMain, third);
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kFlag, Ordering::kAcquireRelease);  // e.g. an atomic add
  detector.Accessed(Write(kSecond, 0x2000, 0x401100));
  detector.Synchronized(kSecond, kFlag, Ordering::kAcquireRelease);
  detector.Synchronized(third, kFlag, Ordering::kAcquire);
  EXPECT_TRUE(detector.Accessed(Read(third, 0x1000, 0x401200)).empty());
  EXPECT_TRUE(detector.Accessed(Read(third, 0x2000, 0x401204)).empty());
}

TEST(RaceDetector, CreationAndJoinOrderTheParentAndTheChild) {
  RaceDetector detector;
  detector.Accessed(Write(kMain, 0x1000, 0x401000));
  detector.ThreadCreated(kMain, kFirst);
  EXPECT_TRUE(detector.Accessed(Read(kFirst, 0x1000, 0x401100)).empty());  // written before the creation
  detector.Accessed(Write(kFirst, 0x1000, 0x401104));
  // Before the join, main's read races with the child's write; after it, it does not.
  EXPECT_EQ(detector.Accessed(Read(kMain, 0x1000, 0x401008)).size(), 1u);
  detector.Joined(kMain, kFirst);
  EXPECT_TRUE(detector.Accessed(Read(kMain, 0x1000, 0x40100c)).empty());
  // What main does after the creation is not ordered before the child's accesses.
  detector.ThreadCreated(kMain, kSecond);
  detector.Accessed(Write(kMain, 0x3000, 0x401010));
  EXPECT_EQ(detector.Accessed(Read(kSecond, 0x3000, 0x401200)).size(), 1u);
}

TEST(RaceDetector, ReadsNeverRaceWithReads) {
  RaceDetector detector = TwoThreads();
  EXPECT_TRUE(detector.Accessed(Read(kFirst, 0x1000, 0x401000)).empty());
  EXPECT_TRUE(detector.Accessed(Read(kSecond, 0x1000, 0x401100)).empty());
  EXPECT_TRUE(detector.Accessed(Read(kMain, 0x1000, 0x401200)).empty());
}

TEST(RaceDetector, AWriteRacesWithEveryReadNotOrderedBeforeIt) {
  RaceDetector detector = TwoThreads();
  const ThreadId third{3};
  detector.ThreadCreated(kMain, third);
  detector.Accessed(Read(kFirst, 0x1000, 0x401000));
  detector.Synchronized(kFirst, kLock, Ordering::kRelease);
  detector.Accessed(Read(kSecond, 0x1000, 0x401100));
  detector.Synchronized(third, kLock, Ordering::kAcquire);  // ordered after the first's read only
  const auto races = detector.Accessed(Write(third, 0x1000, 0x401200));
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].earlier.thread, kSecond);
}

TEST(RaceDetector, OverlappingBytesRaceAndNeighboursDoNot) {
  RaceDetector detector = TwoThreads();
  detector.Accessed(Write(kFirst, 0x1000, 0x401000, 4));
  EXPECT_TRUE(detector.Accessed(Write(kSecond, 0x1004, 0x401100, 4)).empty());  // the next four bytes
  EXPECT_TRUE(detector.Accessed(Read(kSecond, 0x0ffc, 0x401104, 4)).empty());   // the four before
  const auto races = detector.Accessed(Read(kSecond, 0x1003, 0x401108, 1));     // the last byte
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].earlier.address, 0x1000u);
  // An 8-byte access across both writes races with each once.
  EXPECT_EQ(detector.Accessed(Read(kMain, 0x1000, 0x401300, 8)).size(), 2u);
}

TEST(RaceDetector, TheSameAddressInTwoAddressSpacesIsTwoVariables) {
  RaceDetector detector;
  detector.ThreadCreated(kMain, kFirst);  // a fork: the child has its own copy of 0x1000
  MemoryAccess parent = Write(kMain, 0x1000, 0x401000);
  parent.space = 100;
  MemoryAccess child = Write(kFirst, 0x1000, 0x401000);
  child.space = 101;
  detector.Accessed(parent);
  EXPECT_TRUE(detector.Accessed(child).empty());
  // A shared mapping: one space for both, so they race.
  parent.space = child.space = 7;
  detector.Accessed(parent);
  EXPECT_EQ(detector.Accessed(child).size(), 1u);
}

TEST(RaceDetector, AThreadsOwnAccessesNeverRace) {
  RaceDetector detector = TwoThreads();
  detector.Accessed(Write(kFirst, 0x1000, 0x401000));
  EXPECT_TRUE(detector.Accessed(Read(kFirst, 0x1000, 0x401004)).empty());
  EXPECT_TRUE(detector.Accessed(Write(kFirst, 0x1000, 0x401008)).empty());
}

}  // namespace
}  // namespace chess::search
