#include "supervisor/clock.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdint>

namespace chess::supervisor {
namespace {

constexpr int64_t kEpoch = int64_t{1'704'067'200} * kNanosPerSecond;  // 2024-01-01
constexpr int64_t kTai = 37 * kNanosPerSecond;

TEST(VirtualClock, StartsAtTheFixedMonotonicValueAndTheEpoch) {
  VirtualClock clock(kEpoch);
  EXPECT_TRUE(clock.IsVirtual());
  EXPECT_EQ(clock.Elapsed(), 0);
  EXPECT_EQ(clock.Epoch(), kEpoch);
  EXPECT_EQ(clock.Read(CLOCK_MONOTONIC), VirtualClock::kStart);
  EXPECT_EQ(clock.Monotonic(), VirtualClock::kStart);
  EXPECT_EQ(clock.Read(CLOCK_REALTIME), kEpoch);
}

TEST(VirtualClock, MonotonicClocksAllReadTheSame) {
  VirtualClock clock(kEpoch);
  clock.Advance(12'345);
  for (clockid_t id : {CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME,
                       CLOCK_BOOTTIME_ALARM}) {
    EXPECT_EQ(clock.Read(id), VirtualClock::kStart + 12'345) << "clock " << id;
  }
}

TEST(VirtualClock, AdvanceMovesForwardOnly) {
  VirtualClock clock(kEpoch);
  clock.Advance(1'000);
  EXPECT_EQ(clock.Elapsed(), 1'000);
  clock.Advance(0);
  clock.Advance(-500);  // never backwards
  EXPECT_EQ(clock.Elapsed(), 1'000);
  clock.Advance(kNanosPerSecond);
  EXPECT_EQ(clock.Elapsed(), 1'000 + kNanosPerSecond);
}

TEST(VirtualClock, AdvanceToThePastLeavesTheClockWhereItIs) {
  VirtualClock clock(kEpoch);
  clock.AdvanceTo(VirtualClock::kStart + 5 * kNanosPerSecond);
  EXPECT_EQ(clock.Monotonic(), VirtualClock::kStart + 5 * kNanosPerSecond);
  clock.AdvanceTo(VirtualClock::kStart + 2 * kNanosPerSecond);
  EXPECT_EQ(clock.Monotonic(), VirtualClock::kStart + 5 * kNanosPerSecond);
  clock.AdvanceTo(0);
  clock.AdvanceTo(INT64_MIN);
  EXPECT_EQ(clock.Monotonic(), VirtualClock::kStart + 5 * kNanosPerSecond);
  clock.AdvanceTo(clock.Monotonic());  // the present: no change either
  EXPECT_EQ(clock.Monotonic(), VirtualClock::kStart + 5 * kNanosPerSecond);
}

TEST(VirtualClock, MonotonicNeverGoesBackUnderAnyMixOfMoves) {
  VirtualClock clock(kEpoch);
  int64_t last = clock.Monotonic();
  uint64_t x = 1;
  for (int i = 0; i < 10'000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t amount = static_cast<int64_t>(x >> 40) - (int64_t{1} << 23);  // about ±8 ms
    if (x & 1) {
      clock.Advance(amount);
    } else {
      clock.AdvanceTo(last + amount);
    }
    ASSERT_GE(clock.Monotonic(), last) << "step " << i;
    ASSERT_EQ(*clock.Read(CLOCK_REALTIME) - kEpoch, clock.Monotonic() - VirtualClock::kStart);
    last = clock.Monotonic();
  }
}

TEST(VirtualClock, RealtimeIsTheEpochPlusTheElapsedTime) {
  VirtualClock clock(kEpoch);
  clock.Advance(3 * kNanosPerSecond + 17);
  const int64_t expected = kEpoch + 3 * kNanosPerSecond + 17;
  EXPECT_EQ(clock.Read(CLOCK_REALTIME), expected);
  EXPECT_EQ(clock.Read(CLOCK_REALTIME_COARSE), expected);
  EXPECT_EQ(clock.Read(CLOCK_REALTIME_ALARM), expected);
  clock.AdvanceTo(VirtualClock::kStart + 10 * kNanosPerSecond);
  EXPECT_EQ(clock.Read(CLOCK_REALTIME), kEpoch + 10 * kNanosPerSecond);
}

TEST(VirtualClock, AnotherEpochShiftsRealtimeOnly) {
  VirtualClock a(kEpoch), b(int64_t{1'000'000'000} * kNanosPerSecond);
  a.Advance(777);
  b.Advance(777);
  EXPECT_EQ(*a.Read(CLOCK_REALTIME) - *b.Read(CLOCK_REALTIME), kEpoch - int64_t{1'000'000'000} * kNanosPerSecond);
  EXPECT_EQ(a.Read(CLOCK_MONOTONIC), b.Read(CLOCK_MONOTONIC));
  VirtualClock zero(0);
  EXPECT_EQ(zero.Read(CLOCK_REALTIME), 0);
}

TEST(VirtualClock, TaiIsRealtimePlus37Seconds) {
  VirtualClock clock(kEpoch);
  EXPECT_EQ(clock.Read(CLOCK_TAI), kEpoch + kTai);
  clock.Advance(123'456'789);
  EXPECT_EQ(*clock.Read(CLOCK_TAI), *clock.Read(CLOCK_REALTIME) + kTai);
}

TEST(VirtualClock, CpuTimeClocksAreNotKeptHere) {
  VirtualClock clock(kEpoch);
  clock.Advance(kNanosPerSecond);
  EXPECT_EQ(clock.Read(CLOCK_PROCESS_CPUTIME_ID), std::nullopt);
  EXPECT_EQ(clock.Read(CLOCK_THREAD_CPUTIME_ID), std::nullopt);
  // The CPU clock of another process or thread (clock_getcpuclockid, pthread_getcpuclockid).
  const clockid_t other_process = (~static_cast<clockid_t>(1234) << 3) | 2;
  const clockid_t other_thread = (~static_cast<clockid_t>(1234) << 3) | 6;
  EXPECT_EQ(clock.Read(other_process), std::nullopt);
  EXPECT_EQ(clock.Read(other_thread), std::nullopt);
  EXPECT_EQ(clock.Read(static_cast<clockid_t>(99)), std::nullopt);  // no such clock
}

TEST(VirtualClock, ToMonotonicConvertsAbsoluteRealtimeDeadlines) {
  VirtualClock clock(kEpoch);
  clock.Advance(5 * kNanosPerSecond);
  // One second from now on CLOCK_REALTIME is one second from now on CLOCK_MONOTONIC.
  EXPECT_EQ(clock.ToMonotonic(CLOCK_REALTIME, *clock.Read(CLOCK_REALTIME) + kNanosPerSecond),
            clock.Monotonic() + kNanosPerSecond);
  EXPECT_EQ(clock.ToMonotonic(CLOCK_TAI, *clock.Read(CLOCK_TAI) + 7), clock.Monotonic() + 7);
  EXPECT_EQ(clock.ToMonotonic(CLOCK_MONOTONIC, 42), 42);
  // A realtime deadline in the past is a monotonic deadline in the past.
  EXPECT_LT(clock.ToMonotonic(CLOCK_REALTIME, kEpoch), clock.Monotonic());
}

TEST(RealClock, IsNotVirtualAndLeavesCpuClocksToTheKernel) {
  RealClock clock;
  EXPECT_FALSE(clock.IsVirtual());
  EXPECT_TRUE(clock.Read(CLOCK_MONOTONIC).has_value());
  const int64_t a = clock.Monotonic();
  const int64_t b = clock.Monotonic();
  EXPECT_LE(a, b);
}

TEST(SupervisorClocks, TheProgramsClockIsVirtualOnlyWithAnEpoch) {
  const SupervisorClocks real(std::nullopt);
  EXPECT_EQ(real.Virtual(), nullptr);
  EXPECT_FALSE(real.Program().IsVirtual());

  SupervisorClocks virtual_time(kEpoch);
  ASSERT_NE(virtual_time.Virtual(), nullptr);
  EXPECT_TRUE(virtual_time.Program().IsVirtual());
  EXPECT_EQ(virtual_time.ProgramNow(), VirtualClock::kStart);
  // The program's time moves only when the supervisor moves it; the supervisor's own does not
  // depend on it.
  virtual_time.Virtual()->Advance(kNanosPerSecond);
  EXPECT_EQ(virtual_time.ProgramNow(), VirtualClock::kStart + kNanosPerSecond);
  EXPECT_EQ(*virtual_time.Program().Read(CLOCK_REALTIME), kEpoch + kNanosPerSecond);
}

TEST(SupervisorClocks, TheEventsTimeIsTheWallClockAsOfTheLastRefresh) {
  SupervisorClocks clocks(kEpoch);
  EXPECT_EQ(clocks.EventTime(), 0);  // nothing handled yet
  const MonoNanos before = clocks.WallNow();
  clocks.RefreshEventTime();
  const MonoNanos event = clocks.EventTime();
  EXPECT_GE(event, before);
  EXPECT_LE(event, clocks.WallNow());
  EXPECT_EQ(clocks.EventTime(), event);  // read again: the same, until the next refresh
}

}  // namespace
}  // namespace chess::supervisor
