#include "supervisor/slice_meter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace chess::supervisor {
namespace {

constexpr int64_t kSlice = 10'000'000;

TEST(SliceMeter, TheWatchdogLooksAfterTheSmallerOfItsDelayAndTheSlice) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(1'000);
  EXPECT_EQ(meter.SwitchedInAt(), 1'000);
  EXPECT_FALSE(meter.DueForLook(1'000 + kWatchdogNanos - 1));
  EXPECT_TRUE(meter.DueForLook(1'000 + kWatchdogNanos));
  SliceMeter short_slices(kWatchdogNanos / 4);
  short_slices.SwitchedIn(0);
  EXPECT_TRUE(short_slices.DueForLook(kWatchdogNanos / 4));
}

TEST(SliceMeter, TheSliceCountsFromTheFirstLookAtTheCpuTime) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0);
  EXPECT_FALSE(meter.SliceUsed(5'000'000));  // the process's CPU time then: the slice starts
  EXPECT_FALSE(meter.SliceUsed(5'000'000 + kSlice - 1));
  EXPECT_TRUE(meter.SliceUsed(5'000'000 + kSlice));
  meter.SwitchedIn(0);  // another turn starts afresh
  EXPECT_FALSE(meter.SliceUsed(5'000'000 + kSlice));
}

TEST(SliceMeter, TheSyscallBudgetEndsATurn) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0);
  for (uint64_t i = 1; i < kSyscallBudget; ++i) ASSERT_FALSE(meter.CountSyscall()) << "syscall " << i;
  EXPECT_TRUE(meter.CountSyscall());
  meter.SwitchedIn(0);
  EXPECT_FALSE(meter.CountSyscall());
}

TEST(SliceMeter, AUsedUpSliceEndsTheTurnAtTheNextSyscallUntilTheNextSwitch) {
  SliceMeter meter(kSlice);
  meter.YieldAtNextSyscall();
  EXPECT_TRUE(meter.CountSyscall());
  meter.SwitchedIn(0);
  EXPECT_FALSE(meter.CountSyscall());
}

TEST(SliceMeter, AThreadSilentForSeveralSlicesIsStuck) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0);
  meter.SliceUsed(0);
  EXPECT_FALSE(meter.Stuck(false));
  meter.SliceUsed(kSilentSlices * kSlice - 1);
  EXPECT_FALSE(meter.Stuck(false));
  meter.SliceUsed(kSilentSlices * kSlice);
  EXPECT_TRUE(meter.Stuck(false));
}

TEST(SliceMeter, ATrappedSyscallBetweenLooksIsNoSilence) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0);
  meter.SliceUsed(0);
  meter.CountSyscall();
  meter.SliceUsed(2 * kSlice);  // the silence starts again here
  meter.SliceUsed(kSilentSlices * kSlice);
  EXPECT_FALSE(meter.Stuck(false));
  meter.SliceUsed((kSilentSlices + 2) * kSlice);
  EXPECT_TRUE(meter.Stuck(false));
}

TEST(SliceMeter, AThreadAsleepAtTwoLooksInARowIsStuck) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0);
  meter.SliceUsed(0);
  EXPECT_FALSE(meter.Stuck(true));
  EXPECT_FALSE(meter.Stuck(false));  // awake in between: counted again
  EXPECT_FALSE(meter.Stuck(true));
  EXPECT_TRUE(meter.Stuck(true));
  meter.SwitchedIn(0);
  EXPECT_FALSE(meter.Stuck(true));
}

TEST(SliceMeter, AnInterruptBelongsToTheDispatchItWasAskedIn) {
  SliceMeter meter(kSlice);
  EXPECT_FALSE(meter.InterruptAskedIn(0));
  meter.InterruptAsked(7);
  EXPECT_TRUE(meter.InterruptAskedIn(7));
  EXPECT_FALSE(meter.InterruptAskedIn(8));
}

TEST(SliceMeter, AForkedExecutionKeepsThePrefixsTurnButNotItsCpuTimes) {
  SliceMeter prefix(kSlice);
  prefix.SwitchedIn(0);
  for (uint64_t i = 1; i < kSyscallBudget; ++i) prefix.CountSyscall();
  prefix.SliceUsed(50 * kSlice);  // the template's CPU time
  prefix.InterruptAsked(3);
  SliceMeter forked = prefix;
  forked.Begin(100);
  EXPECT_EQ(forked.SwitchedInAt(), 100);
  EXPECT_FALSE(forked.InterruptAskedIn(3));
  EXPECT_FALSE(forked.SliceUsed(0));  // the new process's CPU time starts the slice
  EXPECT_FALSE(forked.Stuck(false));
  EXPECT_TRUE(forked.CountSyscall());  // the prefix's syscalls count towards the budget
}

// A lone computing thread's slices of CPU move virtual time a slice each, up to the earliest
// deadline (SliceMeter::ComputedSlice).
TEST(ComputedSlice, WithNoDeadlineASliceOfCpuIsASliceOfTime) {
  const SliceMeter meter(kSlice);
  EXPECT_EQ(meter.ComputedSlice(std::nullopt, 0), kSlice);
  EXPECT_EQ(meter.ComputedSlice(std::nullopt, 123 * kSlice + 7), kSlice);
}

TEST(ComputedSlice, ADeadlineFurtherThanASliceLeavesTheSliceWhole) {
  const SliceMeter meter(kSlice);
  EXPECT_EQ(meter.ComputedSlice(5'000 + kSlice, 5'000), kSlice);
  EXPECT_EQ(meter.ComputedSlice(5'000 + 3 * kSlice, 5'000), kSlice);
}

TEST(ComputedSlice, ASliceCrossingTheDeadlineEndsAtIt) {
  const SliceMeter meter(kSlice);
  EXPECT_EQ(meter.ComputedSlice(5'000 + kSlice - 1, 5'000), kSlice - 1);
  EXPECT_EQ(meter.ComputedSlice(5'001, 5'000), 1);
}

TEST(ComputedSlice, ADeadlineDueOrPastMovesNothing) {
  const SliceMeter meter(kSlice);
  EXPECT_EQ(meter.ComputedSlice(5'000, 5'000), 0);
  EXPECT_EQ(meter.ComputedSlice(4'000, 5'000), 0);
}

// A thread alone while a sleeper's deadline is 2.5 slices away: its turns are the CPU time to
// the deadline, a slice at most, and time reaches the deadline exactly, after as much computing.
TEST(ComputedSlice, ALoneThreadsSlicesReachTheDeadlineExactly) {
  SliceMeter meter(kSlice);
  const MonoNanos deadline = 1'000 + 5 * kSlice / 2;
  MonoNanos now = 1'000;  // virtual time
  int64_t cpu = 40'000;   // the process's CPU time
  std::vector<int64_t> moves;
  for (int turn = 0; turn < 5 && now < deadline; ++turn) {
    const int64_t computed = meter.ComputedSlice(deadline, now);
    meter.SwitchedIn(0, cpu);
    meter.AloneUntil(computed);  // at each tick of its turn
    EXPECT_FALSE(meter.SliceUsed(cpu + computed - 1)) << "turn " << turn;
    cpu += computed;
    EXPECT_TRUE(meter.SliceUsed(cpu)) << "turn " << turn;
    EXPECT_TRUE(meter.Stuck(false)) << "turn " << turn;  // silent for its whole turn: interrupted
    moves.push_back(computed);
    now += computed;
  }
  EXPECT_EQ(moves, (std::vector<int64_t>{kSlice, kSlice, kSlice / 2}));
  EXPECT_EQ(now, deadline);
  EXPECT_EQ(meter.ComputedSlice(deadline, now), 0);
}

// A lone thread that stops computing — it makes a trapped syscall, or sleeps in the kernel —
// is not interrupted for silence at the end of its turn; a switch gives the next thread a whole
// slice again.
TEST(ComputedSlice, AThreadThatStopsComputingIsNotInterruptedForSilence) {
  SliceMeter meter(kSlice);
  meter.SwitchedIn(0, 0);
  meter.AloneUntil(meter.ComputedSlice(kSlice / 4, 0));
  meter.SliceUsed(kSlice / 8);
  meter.CountSyscall();  // it reached a syscall: the silence starts again at the next look
  EXPECT_TRUE(meter.SliceUsed(kSlice / 4));
  EXPECT_FALSE(meter.Stuck(false));
  // Asleep in the kernel, its CPU time stands still: no slice is used, only two looks asleep
  // in a row make it stuck.
  EXPECT_FALSE(meter.Stuck(true));
  EXPECT_TRUE(meter.Stuck(true));
  meter.SwitchedIn(0, 0);  // a switch: the turn is a whole slice again
  EXPECT_FALSE(meter.SliceUsed(kSlice / 4));
  EXPECT_FALSE(meter.Stuck(false));
  EXPECT_FALSE(meter.DueForLook(std::min<int64_t>(kWatchdogNanos, kSlice) - 1));
}

TEST(ProcessCpuNanos, ReadsThisProcesssCpuTime) {
  const auto cpu = ProcessCpuNanos(getpid());
  ASSERT_TRUE(cpu.has_value());
  EXPECT_GT(*cpu, 0);
}

}  // namespace
}  // namespace chess::supervisor
