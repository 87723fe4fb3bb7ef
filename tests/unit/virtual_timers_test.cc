#include "supervisor/virtual_timers.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>

namespace chess::supervisor {
namespace {

VirtualTimer Armed(MonoNanos expires, int64_t interval, int signal = SIGALRM) {
  return {.expires = expires, .interval = interval, .signal = signal};
}

TEST(VirtualTimers, TheEarliestExpiryOfAnyLiveProcessesTimer) {
  ThreadTable threads;
  FdProbe fds;
  VirtualTimers timers(threads, fds);
  EXPECT_EQ(timers.Earliest(), std::nullopt);
  Process& first = threads.AddProcess(100, 1);
  first.alarm = Armed(5'000, 0);
  first.timerfds[3] = Armed(4'000, 0, 0);
  Process& second = threads.AddProcess(200, 2);
  second.posix_timers[0] = Armed(3'000, 1'000);
  second.posix_timers[1] = VirtualTimer{};  // disarmed
  EXPECT_EQ(timers.Earliest(), 3'000);
  second.exit_code = 0;  // a process that is gone has no timers that count
  EXPECT_EQ(timers.Earliest(), 4'000);
}

TEST(VirtualTimers, AOneShotTimerExpiresOnceAndIsDisarmed) {
  VirtualTimer timer = Armed(1'000, 0);
  EXPECT_EQ(Expire(timer, 999), 0u);
  EXPECT_TRUE(timer.expires.has_value());
  EXPECT_EQ(Expire(timer, 5'000), 1u);
  EXPECT_FALSE(timer.expires.has_value());
  EXPECT_EQ(timer.overrun, 0);
  EXPECT_EQ(Expire(timer, 10'000), 0u);
}

TEST(VirtualTimers, APeriodicTimerIsRearmedAfterEveryPeriodThatPassed) {
  VirtualTimer timer = Armed(1'000, 300);
  EXPECT_EQ(Expire(timer, 1'000), 1u);
  EXPECT_EQ(timer.expires, 1'300);
  // Virtual time jumps over several periods: 1'300, 1'600, 1'900 and 2'200 passed.
  EXPECT_EQ(Expire(timer, 2'250), 4u);
  EXPECT_EQ(timer.expires, 2'500);
}

TEST(VirtualTimers, ExpiriesASignalStandsForAreOverruns) {
  VirtualTimer timer = Armed(1'000, 300);
  EXPECT_EQ(Expire(timer, 1'650), 3u);
  EXPECT_EQ(timer.overrun, 2);
  VirtualTimer timerfd = Armed(1'000, 300, 0);  // counts expiries itself: no overruns
  EXPECT_EQ(Expire(timerfd, 1'650), 3u);
  EXPECT_EQ(timerfd.overrun, 0);
}

TEST(VirtualTimers, ATimerSignalTakenCarriesTheOverrunCount) {
  Process process;
  VirtualTimer& timer = process.posix_timers[4];
  timer.id = 4;
  timer.overrun = 3;
  siginfo_t info{};
  info.si_code = SI_TIMER;
  info.si_timerid = 4;
  ASSERT_TRUE(process.TakeTimerSignal(info));
  EXPECT_EQ(info.si_overrun, 3);
  EXPECT_EQ(timer.delivered_overrun, 3);
  EXPECT_EQ(timer.overrun, 0);

  siginfo_t other{};
  other.si_code = SI_USER;
  EXPECT_FALSE(process.TakeTimerSignal(other));
  siginfo_t unknown{};
  unknown.si_code = SI_TIMER;
  unknown.si_timerid = 9;
  EXPECT_FALSE(process.TakeTimerSignal(unknown));
}

}  // namespace
}  // namespace chess::supervisor
