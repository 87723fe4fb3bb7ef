#include "supervisor/pending_signals.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace chess::supervisor {
namespace {

uint64_t Bit(int signal) { return 1ull << (signal - 1); }

// A signal sent to this thread while it blocks it: pending, blocked, not deliverable. Unblocked
// in the mask the reader compares against, it would be.
TEST(PendingSignals, ReadsThreadPendingAndBlockedMasksFromProc) {
  sigset_t usr1, previous;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &previous), 0);
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), tid, SIGUSR1), 0);

  auto masks = ReadSignalMasks(tid);
  ASSERT_TRUE(masks.has_value());
  EXPECT_NE(masks->thread_pending & Bit(SIGUSR1), 0u);
  EXPECT_NE(masks->blocked & Bit(SIGUSR1), 0u);
  EXPECT_EQ(masks->DeliverableToThread() & Bit(SIGUSR1), 0u);
  SignalMasks unblocked = *masks;
  unblocked.blocked &= ~Bit(SIGUSR1);
  EXPECT_NE(unblocked.DeliverableToThread() & Bit(SIGUSR1), 0u);

  const timespec no_wait{0, 0};
  EXPECT_EQ(sigtimedwait(&usr1, nullptr, &no_wait), SIGUSR1);  // consume it
  auto after = ReadSignalMasks(tid);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->thread_pending & Bit(SIGUSR1), 0u);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

TEST(PendingSignals, AThreadThatDoesNotExistHasNoMasks) {
  EXPECT_FALSE(ReadSignalMasks(0x7ffffff0).has_value());
}

}  // namespace
}  // namespace chess::supervisor
