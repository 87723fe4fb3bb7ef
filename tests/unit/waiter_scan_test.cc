// The WaiterScan (supervisor/waiter_scan.h) on waiters of this test process's own pipes: the
// FdProbe copies them with pidfd_getfd from this process, as it would from a tracee.
#include "supervisor/waiter_scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/unit/fake_services.h"

namespace chess::supervisor {
namespace {

class WaiterScanTest : public ::testing::Test {
 protected:
  WaiterScanTest() : process_(services_.threads_.AddProcess(getpid(), 1)) {
    EXPECT_EQ(pipe(first_), 0);
    EXPECT_EQ(pipe(second_), 0);
  }
  ~WaiterScanTest() override {
    for (int fd : {first_[0], first_[1], second_[0], second_[1]}) close(fd);
  }

  Thread& Waiter(Wait wait) {
    Thread& thread = services_.threads_.AddThread(next_tid_++, process_);
    thread.state = ThreadState::kBlocked;
    thread.wait = std::move(wait);
    return thread;
  }
  static void Fill(int fd) { EXPECT_EQ(write(fd, "x", 1), 1); }

  FakeServices services_;
  Process& process_;
  WaiterScan scan_{services_.threads_, services_.fds_, services_};
  int first_[2] = {-1, -1};
  int second_[2] = {-1, -1};
  pid_t next_tid_ = 1'000'000;  // no thread of the test: nothing reads a waiter's tid
};

TEST_F(WaiterScanTest, AReaderOfAnEmptyPipeIsReadyOnceThereIsData) {
  Thread& reader = Waiter({IoWait{{{first_[0], POLLIN}}}});
  EXPECT_TRUE(scan_.FindReady().empty());
  Fill(first_[1]);
  EXPECT_EQ(scan_.FindReady(), std::vector<Thread*>{&reader});
  reader.state = ThreadState::kReady;  // released: no longer a waiter
  EXPECT_TRUE(scan_.FindReady().empty());
}

TEST_F(WaiterScanTest, WaitersHoldingTheirDescriptorsArePolledTogether) {
  IoWait held{{{first_[0], POLLIN}}};
  held.held.push_back(services_.fds_.Copy(getpid(), first_[0]));
  Thread& reader = Waiter({std::move(held)});
  IoWait both{{{first_[0], POLLIN}, {second_[0], POLLIN}}, true};
  both.held.push_back(services_.fds_.Copy(getpid(), first_[0]));
  both.held.push_back(services_.fds_.Copy(getpid(), second_[0]));
  Thread& splicer = Waiter({std::move(both)});
  EXPECT_TRUE(scan_.FindReady().empty());
  Fill(first_[1]);
  // The splice needs both of its descriptors ready.
  EXPECT_EQ(scan_.FindReady(), std::vector<Thread*>{&reader});
  Fill(second_[1]);
  EXPECT_EQ(scan_.FindReady(), (std::vector<Thread*>{&reader, &splicer}));
}

TEST_F(WaiterScanTest, AWaiterOfADyingProcessIsNeverReady) {
  Waiter({IoWait{{{first_[0], POLLIN}}}});
  Fill(first_[1]);
  process_.dying = true;
  EXPECT_TRUE(scan_.FindReady().empty());
}

TEST_F(WaiterScanTest, WaitsOnDescriptorsObjectsAndSignalsAreEvents) {
  Waiter({SleepWait{}, 5'000});
  EXPECT_FALSE(scan_.AnyOnEvents());
  Waiter({SignalWait{}});
  EXPECT_TRUE(scan_.AnyOnEvents());
}

TEST_F(WaiterScanTest, TheOutsideVerdictIsKeptWhileNothingChangesForASecond) {
  const TreeScope scope;
  Thread& stopped = services_.threads_.AddThread(next_tid_++, process_);
  stopped.state = ThreadState::kStopped;  // anyone may send it a SIGCONT
  EXPECT_TRUE(scan_.AnyOnOutside(7, 1'000, scope));
  EXPECT_FALSE(scan_.WaitsOnOutsideData());
  stopped.state = ThreadState::kReady;
  EXPECT_TRUE(scan_.AnyOnOutside(7, 1'000 + 999'999'999, scope));  // kept
  EXPECT_FALSE(scan_.AnyOnOutside(7, 1'000 + 1'000'000'000, scope));  // a second passed
  stopped.state = ThreadState::kStopped;
  EXPECT_TRUE(scan_.AnyOnOutside(8, 1'000 + 1'000'000'000, scope));  // a dispatch since
}

TEST_F(WaiterScanTest, OnlyDataFromOutsideHoldsTimeBack) {
  Thread& pause = Waiter({SignalWait{}});  // a signal from anyone ends it
  EXPECT_TRUE(scan_.AnyOnOutside(1, 0, {}));
  EXPECT_FALSE(scan_.WaitsOnOutsideData());
  pause.state = ThreadState::kReady;
  Waiter({ObjectWait{}});  // a semaphore: anyone with access may post it
  EXPECT_TRUE(scan_.AnyOnOutside(2, 0, {}));
  EXPECT_TRUE(scan_.WaitsOnOutsideData());
}

}  // namespace
}  // namespace chess::supervisor
