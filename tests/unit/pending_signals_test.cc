#include "supervisor/handlers/pending_signals.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace chess::supervisor {
namespace {

uint64_t Bit(int signal) { return 1ull << (signal - 1); }

// A signal sent to this thread while it blocks it: pending, blocked, not waking. Unblocked in
// the mask the reader compares against — a sigsuspend's own mask, say — it would wake.
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
  EXPECT_EQ(masks->WakingFromThread(nullptr) & Bit(SIGUSR1), 0u);
  const SignalWait suspend_with_usr1_open{masks->blocked & ~Bit(SIGUSR1), 0};
  EXPECT_NE(masks->WakingFromThread(&suspend_with_usr1_open) & Bit(SIGUSR1), 0u);
  const SignalWait sigtimedwait_for_usr1{std::nullopt, Bit(SIGUSR1)};
  EXPECT_NE(masks->WakingFromThread(&sigtimedwait_for_usr1) & Bit(SIGUSR1), 0u);

  const timespec no_wait{0, 0};
  EXPECT_EQ(sigtimedwait(&usr1, nullptr, &no_wait), SIGUSR1);  // consume it
  auto after = ReadSignalMasks(tid);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->thread_pending & Bit(SIGUSR1), 0u);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// A traced thread keeps even ignored signals pending; natively they never woke anyone.
TEST(PendingSignals, IgnoredSignalsDoNotWakeUnlessAwaited) {
  SignalMasks masks;
  masks.thread_pending = Bit(SIGCHLD) | Bit(SIGWINCH) | Bit(SIGUSR2);
  masks.ignored = Bit(SIGUSR2);
  EXPECT_EQ(masks.WakingFromThread(nullptr), 0u);  // default-ignored, or SIG_IGN
  masks.caught = Bit(SIGCHLD);                     // a SIGCHLD handler: it interrupts
  EXPECT_EQ(masks.WakingFromThread(nullptr), Bit(SIGCHLD));
  const SignalWait awaits_winch{std::nullopt, Bit(SIGWINCH)};
  EXPECT_EQ(masks.WakingFromThread(&awaits_winch), Bit(SIGCHLD) | Bit(SIGWINCH));
  masks.process_pending = Bit(SIGTERM);
  EXPECT_EQ(masks.WakingFromProcess(nullptr), Bit(SIGTERM));
}

TEST(PendingSignals, AThreadThatDoesNotExistHasNoMasks) {
  EXPECT_FALSE(ReadSignalMasks(0x7ffffff0).has_value());
}

void OnUsr2(int) {}

TEST(PendingSignals, ASignalEndsTheProcessByDefaultUnlessCaughtOrIgnored) {
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  EXPECT_TRUE(EndsProcess(tid, SIGTERM));
  EXPECT_FALSE(EndsProcess(tid, SIGCHLD));  // ignored by default
  EXPECT_FALSE(EndsProcess(tid, SIGTSTP));  // stops it
  struct sigaction ignore{}, handle{}, previous_usr1{}, previous_usr2{};
  ignore.sa_handler = SIG_IGN;
  handle.sa_handler = OnUsr2;
  ASSERT_EQ(sigaction(SIGUSR1, &ignore, &previous_usr1), 0);
  ASSERT_EQ(sigaction(SIGUSR2, &handle, &previous_usr2), 0);
  EXPECT_FALSE(EndsProcess(tid, SIGUSR1));
  EXPECT_FALSE(EndsProcess(tid, SIGUSR2));
  sigaction(SIGUSR1, &previous_usr1, nullptr);
  sigaction(SIGUSR2, &previous_usr2, nullptr);
}

TEST(PendingSignals, OnlyAFaultTheKernelForcedRecurs) {
  EXPECT_TRUE(RecursAsFault(SIGSEGV, SEGV_MAPERR));  // a NULL dereference
  EXPECT_TRUE(RecursAsFault(SIGSEGV, SI_KERNEL));    // a general protection fault (hlt, say)
  EXPECT_TRUE(RecursAsFault(SIGBUS, BUS_ADRERR));
  EXPECT_TRUE(RecursAsFault(SIGILL, ILL_ILLOPN));    // ud2
  EXPECT_TRUE(RecursAsFault(SIGFPE, FPE_INTDIV));
  EXPECT_FALSE(RecursAsFault(SIGSEGV, SI_USER));     // kill()
  EXPECT_FALSE(RecursAsFault(SIGSEGV, SI_TKILL));    // raise()
  EXPECT_FALSE(RecursAsFault(SIGSEGV, SI_QUEUE));
  EXPECT_FALSE(RecursAsFault(SIGTRAP, SI_KERNEL));   // int3: already behind it
  EXPECT_FALSE(RecursAsFault(SIGABRT, SI_TKILL));
  EXPECT_FALSE(RecursAsFault(SIGSYS, 1));            // a seccomp filter's trap (SYS_SECCOMP)
}

}  // namespace
}  // namespace chess::supervisor
