// Which threads the search may pick (supervisor/schedulable.h).
#include "supervisor/schedulable.h"

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

TEST(Schedulable, ReadyAndExternalThreadsOfLiveProcessesAreEnabled) {
  ThreadTable threads;
  Process& process = threads.AddProcess(100, 1);
  Thread& ready = threads.AddThread(100, process);
  Thread& external = threads.AddThread(101, process);
  external.state = ThreadState::kExternal;
  Thread& blocked = threads.AddThread(102, process);
  blocked.state = ThreadState::kBlocked;
  EXPECT_EQ(EnabledThreads(threads), (std::vector<search::ThreadId>{ready.id, external.id}));
  EXPECT_TRUE(AnyOtherSchedulable(threads, ready));
  external.state = ThreadState::kRunning;
  EXPECT_FALSE(AnyOtherSchedulable(threads, ready));
  process.dying = true;
  EXPECT_TRUE(EnabledThreads(threads).empty());
}

TEST(Schedulable, BlockedThreadsWithADeadlineAreTimed) {
  ThreadTable threads;
  Process& process = threads.AddProcess(100, 1);
  Thread& sleeper = threads.AddThread(100, process);
  sleeper.state = ThreadState::kBlocked;
  sleeper.wait = Wait{SleepWait{}, 5'000};
  Thread& waiter = threads.AddThread(101, process);
  waiter.state = ThreadState::kBlocked;
  waiter.wait = Wait{FutexWordWait{}};
  EXPECT_EQ(TimedThreads(threads), std::vector<search::ThreadId>{sleeper.id});
  EXPECT_TRUE(AnyDeadline(threads));
  process.dying = true;  // its deadline still comes, but is no choice of the search's
  EXPECT_TRUE(TimedThreads(threads).empty());
  EXPECT_TRUE(AnyDeadline(threads));
  sleeper.state = ThreadState::kReady;
  EXPECT_FALSE(AnyDeadline(threads));
}

}  // namespace
}  // namespace chess::supervisor
