// The SignalScan (supervisor/signal_scan.h) on threads of this test process, with signals
// really pending for them: blocked by the threads, and let through by their waits' own masks.
#include "supervisor/signal_scan.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace chess::supervisor {
namespace {

pid_t Tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

class SignalScanTest : public ::testing::Test {
 protected:
  SignalScanTest() : process_(threads_.AddProcess(getpid(), 1)) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old_mask_);
  }
  ~SignalScanTest() override {
    {
      std::lock_guard lock(mutex_);
      release_ = true;
    }
    released_.notify_all();
    if (other_.joinable()) other_.join();
    // Takes what is still pending, before the signal is unblocked.
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    const timespec now{};
    while (sigtimedwait(&usr1, nullptr, &now) == SIGUSR1) {
    }
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }

  // A thread parked in a sigsuspend-like wait that lets every signal through.
  Thread& Parked(pid_t tid) {
    Thread& thread = threads_.AddThread(tid, process_);
    thread.state = ThreadState::kBlocked;
    thread.parked.at = ParkedCall::At::kEntry;
    thread.wait = Wait{SignalWait{.mask = 0}};
    return thread;
  }
  // A second real thread of this process (SIGUSR1 blocked, as in its creator), parked until the
  // test ends.
  pid_t OtherThread() {
    std::promise<pid_t> tid;
    auto future = tid.get_future();
    other_ = std::thread([this, &tid] {
      tid.set_value(Tid());
      std::unique_lock lock(mutex_);
      released_.wait(lock, [this] { return release_; });
    });
    return future.get();
  }
  size_t Takers(MonoNanos now, bool from_tick = false) { return scan_.FindTakers(now, from_tick).size(); }

  ThreadTable threads_;
  Process& process_;
  SignalScan scan_{threads_};
  sigset_t old_mask_{};
  std::mutex mutex_;
  std::condition_variable released_;
  bool release_ = false;
  std::thread other_;
};

TEST_F(SignalScanTest, NotedProcessesAreLookedAtAtTheNextDecisionAndEveryProcessNowAndThen) {
  Thread& parked = Parked(Tid());
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), Tid(), SIGUSR1), 0);
  const std::vector<SignalScan::Taker>& takers = scan_.FindTakers(0, false);  // the first full scan
  ASSERT_EQ(takers.size(), 1u);
  EXPECT_EQ(takers[0].thread, &parked);
  EXPECT_FALSE(takers[0].caught);  // the default action
  EXPECT_EQ(Takers(1), 0u);  // nothing noted, no full scan due
  scan_.MayHaveSignal(getpid());
  EXPECT_FALSE(scan_.NothingNoted());
  EXPECT_EQ(Takers(2), 1u);
  EXPECT_TRUE(scan_.NothingNoted());  // the notes are forgotten
  EXPECT_EQ(Takers(3), 0u);
  scan_.LookAtAll();
  EXPECT_EQ(Takers(4), 1u);
  EXPECT_EQ(Takers(SignalScan::kFullScanInterval - 1), 0u);
  EXPECT_EQ(Takers(SignalScan::kFullScanInterval), 1u);
}

TEST_F(SignalScanTest, WhileAThreadRunsOnlyTheFullScanIsMadeAndNotesWait) {
  Parked(Tid());
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), Tid(), SIGUSR1), 0);
  EXPECT_EQ(Takers(0), 1u);
  scan_.SignalSent(getpid(), false, process_);
  EXPECT_EQ(Takers(1, true), 0u);  // the sending call may not have reached the kernel yet
  EXPECT_EQ(Takers(2), 1u);
  scan_.SignalSent(0, false, process_);  // a process group: everyone
  EXPECT_EQ(Takers(3, true), 0u);
  EXPECT_EQ(Takers(4), 1u);
}

TEST_F(SignalScanTest, AProcessDirectedSignalNeedsOneTaker) {
  Parked(Tid());
  Parked(OtherThread());
  ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
  EXPECT_EQ(Takers(0), 1u);
}

TEST_F(SignalScanTest, OnlyThreadsParkedInAnEmulatedWaitTakeSignals) {
  Thread& parked = Parked(Tid());
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), Tid(), SIGUSR1), 0);
  parked.state = ThreadState::kReady;
  EXPECT_EQ(Takers(0), 0u);
  parked.state = ThreadState::kBlocked;
  process_.dying = true;
  scan_.LookAtAll();
  EXPECT_EQ(Takers(1), 0u);
}

}  // namespace
}  // namespace chess::supervisor
