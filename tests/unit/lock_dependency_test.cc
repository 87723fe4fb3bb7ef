// iGoodlock over the lock dependency relation of one execution: the cycles a run that did not
// deadlock predicts, and the ones it must not — a gate lock held in common, one consistent
// order, a cycle within one thread, two readers of a reader-preferring rwlock.
#include "search/lock_dependency.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

constexpr uint64_t kA = 0xa;
constexpr uint64_t kB = 0xb;
constexpr uint64_t kC = 0xc;
constexpr uint64_t kGate = 0x6a7e;

// Thread `thread` takes `first` at site 1, then `second` at site 2, and lets both go.
void Nested(LockDependencyRecorder& recorder, uint32_t thread, uint64_t first, uint64_t second,
            LockMode first_mode = LockMode::kExclusive, LockMode second_mode = LockMode::kExclusive,
            LockKind kind = {}) {
  recorder.Acquired(thread, first, first_mode, 1, kind);
  recorder.Acquired(thread, second, second_mode, 2, kind);
  recorder.Released(thread, second);
  recorder.Released(thread, first);
}

CyclePrediction Predict(const LockDependencyRecorder& recorder, size_t threads = 8) {
  return PredictCycles(recorder.Dependencies(), recorder.Kinds(), threads);
}

TEST(LockDependencyTest, AnInvertedPairIsACycleFoundOnce) {
  LockDependencyRecorder recorder;
  Nested(recorder, 1, kA, kB);
  // Unrelated locked work in between changes nothing.
  Nested(recorder, 2, kC, kC + 1);
  Nested(recorder, 3, kB, kA);
  const CyclePrediction prediction = Predict(recorder);
  ASSERT_EQ(prediction.cycles.size(), 1u);
  const PredictedCycle& cycle = prediction.cycles[0];
  ASSERT_EQ(cycle.steps.size(), 2u);
  // From the smallest thread: 1 holds A and waits for B, which 3 holds while it waits for A.
  EXPECT_EQ(cycle.steps[0].thread, 1u);
  EXPECT_EQ(cycle.steps[0].lock, kB);
  EXPECT_EQ(cycle.steps[0].held, (std::vector<HeldLock>{{kA, LockMode::kExclusive, 1}}));
  EXPECT_EQ(cycle.steps[0].site, 2u);
  EXPECT_EQ(cycle.steps[1].thread, 3u);
  EXPECT_EQ(cycle.steps[1].lock, kA);
  EXPECT_EQ(prediction.gated, 0u);
}

TEST(LockDependencyTest, ThreeLocksOverThreeThreads) {
  LockDependencyRecorder recorder;
  Nested(recorder, 1, kA, kB);
  Nested(recorder, 2, kB, kC);
  Nested(recorder, 3, kC, kA);
  const CyclePrediction prediction = Predict(recorder);
  ASSERT_EQ(prediction.cycles.size(), 1u);
  EXPECT_EQ(prediction.cycles[0].steps.size(), 3u);
  // Two threads are too few for it.
  EXPECT_TRUE(Predict(recorder, 2).cycles.empty());
}

TEST(LockDependencyTest, AGateLockHeldInCommonPreventsTheCycle) {
  LockDependencyRecorder recorder;
  for (uint32_t thread : {1u, 2u}) {
    recorder.Acquired(thread, kGate, LockMode::kExclusive, 9);
    Nested(recorder, thread, thread == 1 ? kA : kB, thread == 1 ? kB : kA);
    recorder.Released(thread, kGate);
  }
  const CyclePrediction prediction = Predict(recorder);
  EXPECT_TRUE(prediction.cycles.empty());
  EXPECT_EQ(prediction.gated, 1u);  // predicted, then filtered
  // A gate both hold for reading excludes nothing: the cycle stands.
  LockDependencyRecorder readers;
  for (uint32_t thread : {1u, 2u}) {
    readers.Acquired(thread, kGate, LockMode::kShared, 9);
    Nested(readers, thread, thread == 1 ? kA : kB, thread == 1 ? kB : kA);
    readers.Released(thread, kGate);
  }
  EXPECT_EQ(Predict(readers).cycles.size(), 1u);
}

TEST(LockDependencyTest, OneConsistentOrderPredictsNothing) {
  LockDependencyRecorder recorder;
  for (uint32_t thread = 1; thread <= 4; ++thread) {
    Nested(recorder, thread, kA, kB);
    Nested(recorder, thread, kB, kC);
    Nested(recorder, thread, kA, kC);
  }
  EXPECT_TRUE(Predict(recorder).cycles.empty());
}

TEST(LockDependencyTest, ACycleWithinOneThreadIsNoDeadlock) {
  LockDependencyRecorder recorder;
  Nested(recorder, 1, kA, kB);
  Nested(recorder, 1, kB, kA);
  EXPECT_TRUE(Predict(recorder).cycles.empty());
}

TEST(LockDependencyTest, ReadersOfAReaderPreferringLockDoNotWaitForEachOther) {
  // Thread 1 reads A then writes B; thread 2 writes B then reads A: 2 waits for nothing on A.
  LockDependencyRecorder reader_preferring;
  Nested(reader_preferring, 1, kA, kB, LockMode::kShared, LockMode::kExclusive);
  Nested(reader_preferring, 2, kB, kA, LockMode::kExclusive, LockMode::kShared);
  EXPECT_TRUE(Predict(reader_preferring).cycles.empty());
  // With a writer waiting, a writer-preferring lock queues the second reader: a deadlock.
  LockDependencyRecorder writer_preferring;
  const LockKind preferring{true};
  Nested(writer_preferring, 1, kA, kB, LockMode::kShared, LockMode::kExclusive, preferring);
  Nested(writer_preferring, 2, kB, kA, LockMode::kExclusive, LockMode::kShared, preferring);
  EXPECT_EQ(Predict(writer_preferring).cycles.size(), 1u);
  // A reader waiting for a writer waits on any kind.
  LockDependencyRecorder reader_waits;
  Nested(reader_waits, 1, kA, kB, LockMode::kExclusive, LockMode::kExclusive);
  Nested(reader_waits, 2, kB, kA, LockMode::kExclusive, LockMode::kShared);
  EXPECT_EQ(Predict(reader_waits).cycles.size(), 1u);
}

TEST(LockDependencyTest, RecursiveAcquisitionsAndNonNestedReleases) {
  LockDependencyRecorder recorder;
  // A taken twice (recursive): no dependency of A on itself, and A is held until its last release.
  recorder.Acquired(1, kA, LockMode::kExclusive, 1);
  recorder.Acquired(1, kA, LockMode::kExclusive, 1);
  recorder.Released(1, kA);
  recorder.Acquired(1, kB, LockMode::kExclusive, 2);
  EXPECT_EQ(recorder.Holding(1).size(), 2u);
  // Released out of order: A first, then B — C is then taken holding nothing.
  recorder.Released(1, kA);
  recorder.Released(1, kB);
  recorder.Acquired(1, kC, LockMode::kExclusive, 3);
  recorder.Released(1, kC);
  EXPECT_TRUE(recorder.Holding(1).empty());
  for (const LockDependency& d : recorder.Dependencies()) {
    for (const HeldLock& held : d.held) EXPECT_NE(held.lock, d.lock);
    if (d.lock == kB) {
      EXPECT_EQ(d.held.size(), 1u);
    }
    if (d.lock == kC) {
      EXPECT_TRUE(d.held.empty());
    }
  }
  // The dependency B-holding-A makes a cycle with a thread that takes B then A.
  Nested(recorder, 2, kB, kA);
  EXPECT_EQ(Predict(recorder).cycles.size(), 1u);
}

TEST(LockDependencyTest, ThreadsDoingTheSameWorkMakeOneCycle) {
  LockDependencyRecorder recorder;
  for (uint32_t thread = 1; thread <= 5; ++thread) Nested(recorder, thread, kA, kB);
  Nested(recorder, 6, kB, kA);
  const CyclePrediction prediction = Predict(recorder);
  ASSERT_EQ(prediction.cycles.size(), 1u);
  EXPECT_EQ(prediction.cycles[0].steps[0].thread, 1u);
  EXPECT_EQ(prediction.cycles[0].steps[1].thread, 6u);
}

TEST(LockDependencyTest, AnExitedThreadHoldsNothing) {
  LockDependencyRecorder recorder;
  recorder.Acquired(1, kA, LockMode::kExclusive, 1);
  recorder.Exited(1);
  EXPECT_TRUE(recorder.Holding(1).empty());
  recorder.Acquired(1, kB, LockMode::kExclusive, 2);
  for (const LockDependency& d : recorder.Dependencies()) {
    if (d.lock == kB) {
      EXPECT_TRUE(d.held.empty());
    }
  }
}

TEST(LockDependencyTest, TheChainBudgetCutsTheSearchShortAndSaysSo) {
  LockDependencyRecorder recorder;
  // Many threads each holding one lock of a ring while asking for the next: long chains.
  constexpr uint32_t kThreads = 12;
  for (uint32_t thread = 0; thread < kThreads; ++thread) {
    Nested(recorder, thread, 100 + thread, 100 + (thread + 1) % kThreads);
  }
  const CyclePrediction whole = PredictCycles(recorder.Dependencies(), recorder.Kinds(), kThreads);
  EXPECT_FALSE(whole.cut_short);
  ASSERT_EQ(whole.cycles.size(), 1u);
  EXPECT_EQ(whole.cycles[0].steps.size(), kThreads);
  const CyclePrediction cut = PredictCycles(recorder.Dependencies(), recorder.Kinds(), kThreads, 20);
  EXPECT_TRUE(cut.cut_short);
  EXPECT_TRUE(cut.cycles.empty());
}

TEST(LockDependencyTest, AskedListsEachHeldLockOnceAndIgnoresATakingAgain) {
  LockDependencyRecorder recorder;
  // The shim lists a recursive mutex once per hold: the dependency has it once.
  recorder.Asked({1, {{kA, LockMode::kExclusive, 1}, {kA, LockMode::kExclusive, 3}}, kB, LockMode::kExclusive, 2}, {});
  // Taking a lock it holds (a recursive mutex, a second read) cannot wait: nothing added.
  recorder.Asked({1, {{kA, LockMode::kExclusive, 1}}, kA, LockMode::kExclusive, 4}, {});
  ASSERT_EQ(recorder.Dependencies().size(), 1u);
  const LockDependency& only = *recorder.Dependencies().begin();
  EXPECT_EQ(only.held, (std::vector<HeldLock>{{kA, LockMode::kExclusive, 1}}));
  EXPECT_EQ(only.lock, kB);
  recorder.Asked({2, {{kB, LockMode::kExclusive, 5}}, kA, LockMode::kExclusive, 6}, {});
  const CyclePrediction prediction = Predict(recorder);
  ASSERT_EQ(prediction.cycles.size(), 1u);
  LockObservation observed{recorder.Dependencies(), recorder.Kinds(), {{kA, "A"}, {kB, "B"}, {2, "first"}, {6, "last"}}};
  EXPECT_EQ(observed.Threads(), 2u);
  EXPECT_EQ(DescribeCycle(prediction.cycles[0], observed), "A → B in first, B → A in last");
}

TEST(LockDependencyTest, AGatedCycleIsCountedOnceHoweverManyThreadsMakeIt) {
  LockDependencyRecorder recorder;
  // Threads 1-3 take A then B, threads 4-6 B then A, all under the gate: one cycle, ruled out.
  for (uint32_t thread = 1; thread <= 6; ++thread) {
    const bool forward = thread <= 3;
    recorder.Acquired(thread, kGate, LockMode::kExclusive, 9);
    Nested(recorder, thread, forward ? kA : kB, forward ? kB : kA);
    recorder.Released(thread, kGate);
  }
  const CyclePrediction prediction = Predict(recorder);
  EXPECT_TRUE(prediction.cycles.empty());
  EXPECT_EQ(prediction.gated, 1u);
}

}  // namespace
}  // namespace chess::search
