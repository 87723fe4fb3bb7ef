#include "supervisor/slice_meter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>

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

TEST(ProcessCpuNanos, ReadsThisProcesssCpuTime) {
  const auto cpu = ProcessCpuNanos(getpid());
  ASSERT_TRUE(cpu.has_value());
  EXPECT_GT(*cpu, 0);
}

}  // namespace
}  // namespace chess::supervisor
