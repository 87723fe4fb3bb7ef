// The futex emulation against the kernel's documented semantics. The "tracee" is this test
// process itself: process_vm_readv/writev through its threads reach the futex words below.
#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "seccomp/arch.h"
#include "supervisor/handlers/handler.h"
#include "tests/unit/fake_services.h"

namespace chess::supervisor {
namespace {

// Each emulated thread is backed by a real thread of this process, parked until the test ends,
// so its tid is real: memory reads through it reach the futex words on this test's stack, and
// the PI word protocol sees genuine tids.
class FutexHandlerTest : public ::testing::Test {
 protected:
  FutexHandlerTest() : process_(services_.threads_.AddProcess(getpid(), 1)) {}

  ~FutexHandlerTest() override {
    {
      std::lock_guard lock(mutex_);
      release_ = true;
    }
    released_.notify_all();
    for (std::thread& parked : parked_) parked.join();
  }

  Thread& NewThread() {
    std::promise<pid_t> tid;
    auto future = tid.get_future();
    parked_.emplace_back([this, &tid] {
      tid.set_value(static_cast<pid_t>(syscall(SYS_gettid)));
      std::unique_lock lock(mutex_);
      released_.wait(lock, [this] { return release_; });
    });
    Thread& thread = services_.threads_.AddThread(future.get(), process_);
    thread.state = ThreadState::kRunning;
    return thread;
  }

  // The thread stops at the call `nr` with `args`.
  SyscallContext Trap(Thread& thread, long nr, std::initializer_list<uint64_t> args) {
    thread.call.nr = nr;
    int i = 0;
    for (uint64_t arg : args) thread.call.args[i++] = arg;
    for (; i < 6; ++i) thread.call.args[i] = 0;
    return {thread, services_};
  }

  // Runs the entry half, and the deferred half when the entry asks for a scheduling point (an
  // answer of `execute` is one at entry too).
  Disposition Call(Thread& thread, long nr, std::initializer_list<uint64_t> args) {
    SyscallContext context = Trap(thread, nr, args);
    Disposition disposition = handler_.on_entry(context);
    if (disposition.kind == Disposition::Kind::kPoint) disposition = handler_.execute(context);
    if (disposition.kind == Disposition::Kind::kBlock) thread.state = ThreadState::kBlocked;
    return disposition;
  }

  static uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

  const FamilyHandler handler_ = FutexHandler();
  FakeServices services_;
  Process& process_;
  std::mutex mutex_;
  std::condition_variable released_;
  bool release_ = false;
  std::vector<std::thread> parked_;
};

TEST_F(FutexHandlerTest, WaitWithAStaleValueReturnsEagain) {
  uint32_t word = 1;
  Thread& t = NewThread();
  auto d = Call(t, SYS_futex, {Addr(&word), FUTEX_WAIT_PRIVATE, 0});
  EXPECT_EQ(d.kind, Disposition::Kind::kComplete);
  EXPECT_EQ(d.value, -EAGAIN);
}

TEST_F(FutexHandlerTest, WaitBlocksAndWakeReleasesOldestFirst) {
  uint32_t word = 0;
  Thread& a = NewThread();
  Thread& b = NewThread();
  Thread& waker = NewThread();
  EXPECT_EQ(Call(a, SYS_futex, {Addr(&word), FUTEX_WAIT_PRIVATE, 0}).kind, Disposition::Kind::kBlock);
  EXPECT_EQ(Call(b, SYS_futex, {Addr(&word), FUTEX_WAIT_PRIVATE, 0}).kind, Disposition::Kind::kBlock);
  auto woke = Call(waker, SYS_futex, {Addr(&word), FUTEX_WAKE_PRIVATE, 1});
  EXPECT_EQ(woke.value, 1);
  EXPECT_EQ(a.state, ThreadState::kReady);
  EXPECT_EQ(a.parked.result, 0);
  EXPECT_EQ(b.state, ThreadState::kBlocked);
}

TEST_F(FutexHandlerTest, PrivateWakeDoesNotReachASharedWaiter) {
  uint32_t word = 0;
  Thread& a = NewThread();
  Thread& waker = NewThread();
  EXPECT_EQ(Call(a, SYS_futex, {Addr(&word), FUTEX_WAIT, 0}).kind, Disposition::Kind::kBlock);
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&word), FUTEX_WAKE_PRIVATE, 1}).value, 0);
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&word), FUTEX_WAKE, 1}).value, 1);
}

TEST_F(FutexHandlerTest, BitsetWakeSelectsMatchingWaiters) {
  uint32_t word = 0;
  Thread& a = NewThread();
  Thread& b = NewThread();
  Thread& waker = NewThread();
  Call(a, SYS_futex, {Addr(&word), FUTEX_WAIT_BITSET_PRIVATE, 0, 0, 0, 0x1});
  Call(b, SYS_futex, {Addr(&word), FUTEX_WAIT_BITSET_PRIVATE, 0, 0, 0, 0x2});
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&word), FUTEX_WAKE_BITSET_PRIVATE, 10, 0, 0, 0x2}).value, 1);
  EXPECT_EQ(b.state, ThreadState::kReady);
  EXPECT_EQ(a.state, ThreadState::kBlocked);
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&word), FUTEX_WAKE_BITSET_PRIVATE, 10, 0, 0, 0}).value, -EINVAL);
}

TEST_F(FutexHandlerTest, WakeOpModifiesTheSecondWordAndWakesBothConditionally) {
  uint32_t first = 0, second = 5;
  Thread& a = NewThread();
  Thread& b = NewThread();
  Thread& waker = NewThread();
  Call(a, SYS_futex, {Addr(&first), FUTEX_WAIT_PRIVATE, 0});
  Call(b, SYS_futex, {Addr(&second), FUTEX_WAIT_PRIVATE, 5});
  // second += 1; wake one on first; if old second == 5, wake one on second.
  const uint32_t op = FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 5);
  auto d = Call(waker, SYS_futex, {Addr(&first), FUTEX_WAKE_OP_PRIVATE, 1, 1, Addr(&second), op});
  EXPECT_EQ(d.value, 2);
  EXPECT_EQ(second, 6u);
  EXPECT_EQ(a.state, ThreadState::kReady);
  EXPECT_EQ(b.state, ThreadState::kReady);
}

TEST_F(FutexHandlerTest, CmpRequeueChecksTheValueThenMovesWaiters) {
  uint32_t from = 0, to = 0;
  Thread& a = NewThread();
  Thread& b = NewThread();
  Thread& c = NewThread();
  Thread& waker = NewThread();
  for (Thread* t : {&a, &b, &c}) Call(*t, SYS_futex, {Addr(&from), FUTEX_WAIT_PRIVATE, 0});
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&from), FUTEX_CMP_REQUEUE_PRIVATE, 1, 5, Addr(&to), 7}).value, -EAGAIN);
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&from), FUTEX_CMP_REQUEUE_PRIVATE, 1, 5, Addr(&to), 0}).value, 3);
  EXPECT_EQ(a.state, ThreadState::kReady);
  // b and c now wait on `to`.
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&to), FUTEX_WAKE_PRIVATE, 10}).value, 2);
}

TEST_F(FutexHandlerTest, PiLockIsHandedToTheFirstWaiterOnUnlock) {
  Thread& owner = NewThread();
  Thread& waiter = NewThread();
  uint32_t word = static_cast<uint32_t>(owner.tid);  // taken in user space by `owner`
  EXPECT_EQ(Call(waiter, SYS_futex, {Addr(&word), FUTEX_LOCK_PI_PRIVATE, 0}).kind, Disposition::Kind::kBlock);
  EXPECT_EQ(word, static_cast<uint32_t>(owner.tid) | FUTEX_WAITERS);
  EXPECT_EQ(Call(waiter, SYS_futex, {Addr(&word), FUTEX_UNLOCK_PI_PRIVATE}).value, -EPERM);
  EXPECT_EQ(Call(owner, SYS_futex, {Addr(&word), FUTEX_UNLOCK_PI_PRIVATE}).value, 0);
  EXPECT_EQ(word, static_cast<uint32_t>(waiter.tid));
  EXPECT_EQ(waiter.state, ThreadState::kReady);
  EXPECT_EQ(waiter.parked.result, 0);
}

// A free PI lock is a visible acquisition: a point at entry; whoever holds it when the thread
// is picked decides what its `execute` answers.
TEST_F(FutexHandlerTest, LockPiOnAFreeLockIsAPointAndIsTakenOrWaitedForWhenPicked) {
  Thread& locker = NewThread();
  Thread& other = NewThread();
  uint32_t word = 0;
  SyscallContext context = Trap(locker, SYS_futex, {Addr(&word), FUTEX_LOCK_PI_PRIVATE, 0});
  const Disposition entry = handler_.on_entry(context);
  EXPECT_EQ(entry.kind, Disposition::Kind::kPoint);
  EXPECT_EQ(entry.op, search::OpKind::kFutexWait);
  EXPECT_EQ(entry.resource, Addr(&word));
  const ExecuteAnswer taken = handler_.execute(context);
  EXPECT_EQ(taken.kind, ExecuteAnswer::Kind::kComplete);
  EXPECT_EQ(taken.value, 0);
  EXPECT_EQ(word, static_cast<uint32_t>(locker.tid));

  word = 0;
  SyscallContext late = Trap(other, SYS_futex, {Addr(&word), FUTEX_LOCK_PI_PRIVATE, 0});
  EXPECT_EQ(handler_.on_entry(late).kind, Disposition::Kind::kPoint);
  word = static_cast<uint32_t>(locker.tid);  // taken in user space before `other` is picked
  EXPECT_EQ(handler_.execute(late).kind, ExecuteAnswer::Kind::kBlock);
  EXPECT_EQ(word, static_cast<uint32_t>(locker.tid) | FUTEX_WAITERS);
}

TEST_F(FutexHandlerTest, TrylockPiOnAnOwnedLockSaysAgainAndOnAFreeOneTakesIt) {
  Thread& owner = NewThread();
  Thread& other = NewThread();
  uint32_t word = static_cast<uint32_t>(owner.tid);
  EXPECT_EQ(Call(other, SYS_futex, {Addr(&word), FUTEX_TRYLOCK_PI_PRIVATE}).value, -EAGAIN);
  word = 0;
  EXPECT_EQ(Call(other, SYS_futex, {Addr(&word), FUTEX_TRYLOCK_PI_PRIVATE}).value, 0);
  EXPECT_EQ(word, static_cast<uint32_t>(other.tid));
  EXPECT_EQ(Call(other, SYS_futex, {Addr(&word), FUTEX_LOCK_PI_PRIVATE}).value, -EDEADLK);
}

TEST_F(FutexHandlerTest, WaitvBlocksOnAllWordsAndReturnsTheIndexThatWoke) {
  uint32_t words[2] = {0, 0};
  struct futex_waitv vector[2] = {};
  for (int i = 0; i < 2; ++i) {
    vector[i].uaddr = Addr(&words[i]);
    vector[i].val = 0;
    vector[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
  }
  Thread& waiter = NewThread();
  Thread& waker = NewThread();
  EXPECT_EQ(Call(waiter, seccomp::kSysFutexWaitv, {Addr(vector), 2, 0, 0, 0}).kind, Disposition::Kind::kBlock);
  EXPECT_EQ(Call(waker, SYS_futex, {Addr(&words[1]), FUTEX_WAKE_PRIVATE, 1}).value, 1);
  EXPECT_EQ(waiter.parked.result, 1);
  EXPECT_FALSE(services_.futexes_.IsWaiting(waiter.tid));
  words[0] = 3;
  EXPECT_EQ(Call(waiter, seccomp::kSysFutexWaitv, {Addr(vector), 2, 0, 0, 0}).value, -EAGAIN);
}

TEST_F(FutexHandlerTest, BadArgumentsGetTheKernelsErrors) {
  Thread& t = NewThread();
  uint32_t words[2] = {0, 0};
  const uint64_t misaligned = Addr(words) + 1;
  EXPECT_EQ(Call(t, SYS_futex, {misaligned, FUTEX_WAIT_PRIVATE, 0}).value, -EINVAL);
  EXPECT_EQ(Call(t, SYS_futex, {8, FUTEX_WAIT_PRIVATE, 0}).value, -EFAULT);
  struct timespec bad = {0, 2'000'000'000};
  EXPECT_EQ(Call(t, SYS_futex, {Addr(words), FUTEX_WAIT_PRIVATE, 0, Addr(&bad)}).value, -EINVAL);
  EXPECT_EQ(Call(t, SYS_futex, {Addr(words), 99, 0}).value, -ENOSYS);
}

TEST_F(FutexHandlerTest, RelativeTimeoutBecomesADeadline) {
  uint32_t word = 0;
  Thread& t = NewThread();
  struct timespec tenth = {0, 100'000'000};
  const MonoNanos before = services_.clock_.Monotonic();
  EXPECT_EQ(Call(t, SYS_futex, {Addr(&word), FUTEX_WAIT_PRIVATE, 0, Addr(&tenth)}).kind, Disposition::Kind::kBlock);
  ASSERT_TRUE(t.wait.has_value());
  EXPECT_TRUE(t.wait->Is<FutexWordWait>());
  ASSERT_TRUE(t.wait->deadline.has_value());
  EXPECT_GE(*t.wait->deadline, before + 100'000'000);
  EXPECT_LT(*t.wait->deadline, before + 1'100'000'000);
  EXPECT_EQ(t.wait->timeout_result, -ETIMEDOUT);
}

}  // namespace
}  // namespace chess::supervisor
