#include "supervisor/handlers/emulated_tracee.h"

#include <gtest/gtest.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <csignal>

namespace chess::supervisor {
namespace {

namespace abi = ptrace_abi;

// The emulation's own numbers are the kernel's.
static_assert(abi::kTraceMe == PTRACE_TRACEME && abi::kPeekData == PTRACE_PEEKDATA && abi::kCont == PTRACE_CONT &&
              abi::kKill == PTRACE_KILL && abi::kGetRegs == PTRACE_GETREGS && abi::kSetRegs == PTRACE_SETREGS &&
              abi::kAttach == PTRACE_ATTACH && abi::kDetach == PTRACE_DETACH && abi::kSyscall == PTRACE_SYSCALL &&
              abi::kSetOptions == PTRACE_SETOPTIONS && abi::kGetEventMsg == PTRACE_GETEVENTMSG &&
              abi::kGetSigInfo == PTRACE_GETSIGINFO && abi::kSetSigInfo == PTRACE_SETSIGINFO &&
              abi::kSeize == PTRACE_SEIZE && abi::kInterrupt == PTRACE_INTERRUPT);
static_assert(abi::kEventExit == PTRACE_EVENT_EXIT && abi::kEventFork == PTRACE_EVENT_FORK &&
              abi::kEventExec == PTRACE_EVENT_EXEC && abi::kEventStop == PTRACE_EVENT_STOP &&
              abi::kEventSeccomp == PTRACE_EVENT_SECCOMP);
static_assert(abi::kOptionMask == PTRACE_O_MASK && abi::kOptionExitKill == PTRACE_O_EXITKILL);

TEST(EmulatedStop, WaitStatusIsTheKernels) {
  const EmulatedStop signal_stop{.signal = SIGSEGV};
  EXPECT_TRUE(WIFSTOPPED(signal_stop.WaitStatus()));
  EXPECT_EQ(WSTOPSIG(signal_stop.WaitStatus()), SIGSEGV);
  EXPECT_EQ(signal_stop.WaitStatus(), (SIGSEGV << 8) | 0x7f);
  const EmulatedStop exit_stop{.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = abi::kEventExit};
  EXPECT_EQ(exit_stop.WaitStatus() >> 8, SIGTRAP | (PTRACE_EVENT_EXIT << 8));
}

TEST(EmulatedTracee, AStopIsReportedOnceUnlessLeftForLater) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kTraceMe);
  EXPECT_FALSE(tracee.Report(true));
  tracee.Enter({.signal = SIGSTOP});
  EXPECT_TRUE(tracee.Stopped());
  EXPECT_EQ(tracee.Report(false), (SIGSTOP << 8) | 0x7f);  // WNOWAIT
  EXPECT_FALSE(tracee.Reported());
  EXPECT_EQ(tracee.Report(true), (SIGSTOP << 8) | 0x7f);
  EXPECT_TRUE(tracee.Reported());
  EXPECT_FALSE(tracee.Report(true));
  EXPECT_TRUE(tracee.Stopped());  // reported, still stopped until let go
}

TEST(EmulatedTracee, LeavingASignalStopDeliversTheTracersSignal) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kAttach);
  tracee.Enter({.signal = SIGSTOP});
  EXPECT_EQ(tracee.Leave(0), 0);  // suppressed
  EXPECT_FALSE(tracee.Stopped());
  tracee.Enter({.signal = SIGSEGV});
  EXPECT_EQ(tracee.Leave(SIGUSR1), SIGUSR1);  // another one instead
  EXPECT_FALSE(tracee.Report(true));
}

TEST(EmulatedTracee, TheExitStopsOnceAndGoesOnOnce) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kTraceMe);
  EXPECT_FALSE(tracee.Wants(abi::kEventExit));
  ASSERT_TRUE(tracee.SetOptions(PTRACE_O_TRACEEXIT));
  EXPECT_TRUE(tracee.Wants(abi::kEventExit));
  EXPECT_FALSE(tracee.Wants(abi::kEventFork));
  EXPECT_FALSE(tracee.ExitStopped());
  tracee.Enter({.kind = EmulatedStop::Kind::kEvent, .signal = SIGTRAP, .event = abi::kEventExit});
  EXPECT_TRUE(tracee.ExitStopped());
  EXPECT_FALSE(tracee.TakeExitGoingOn());
  EXPECT_EQ(tracee.Leave(SIGUSR1), 0);  // an event stop delivers no signal
  EXPECT_TRUE(tracee.TakeExitGoingOn());
  EXPECT_FALSE(tracee.TakeExitGoingOn());
  EXPECT_TRUE(tracee.ExitStopped());
}

TEST(EmulatedTracee, UnknownOptionsAreRefused) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kSeize, PTRACE_O_EXITKILL);
  EXPECT_EQ(tracee.Options(), static_cast<uint64_t>(PTRACE_O_EXITKILL));
  EXPECT_FALSE(tracee.SetOptions(1ull << 30));
  EXPECT_EQ(tracee.Options(), static_cast<uint64_t>(PTRACE_O_EXITKILL));
  EXPECT_TRUE(tracee.SetOptions(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK));
  EXPECT_TRUE(tracee.Wants(abi::kEventFork));
}

TEST(EmulatedTracee, ADeathEndsTheStopAndIsReportedOnce) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kAttach);
  tracee.Enter({.signal = SIGSTOP});
  tracee.Died(SIGKILL);  // as waitpid gives a death by SIGKILL
  EXPECT_FALSE(tracee.Stopped());
  EXPECT_EQ(tracee.Report(false), SIGKILL);
  const std::optional<int> status = tracee.Report(true);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFSIGNALED(*status));
  EXPECT_FALSE(tracee.Report(true));
}

TEST(EmulatedTracee, AGroupStopOfASeizedTraceeIsAnEventStopWithSiginfo) {
  EmulatedTracee seized(10, 10, EmulatedTracee::Origin::kSeize);
  seized.Enter({.kind = EmulatedStop::Kind::kGroupStop, .signal = SIGSTOP, .event = abi::kEventStop});
  EXPECT_EQ(seized.Report(true), (abi::kEventStop << 16) | (SIGSTOP << 8) | 0x7f);
  EXPECT_TRUE(seized.Stop()->HasSigInfo());
  EmulatedTracee attached(10, 10, EmulatedTracee::Origin::kAttach);
  attached.Enter({.kind = EmulatedStop::Kind::kGroupStop, .signal = SIGSTOP});
  EXPECT_EQ(attached.Report(true), (SIGSTOP << 8) | 0x7f);
  EXPECT_FALSE(attached.Stop()->HasSigInfo());  // the kernel's EINVAL
  EXPECT_FALSE(attached.Listen());              // not seized: EIO
  EXPECT_TRUE(attached.Stopped());
}

TEST(EmulatedTracee, AnInterruptShowsTheStopSignalUntilASigcont) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kSeize);
  EXPECT_EQ(tracee.InterruptStop().WaitStatus(), (abi::kEventStop << 16) | (SIGTRAP << 8) | 0x7f);
  tracee.Enter({.kind = EmulatedStop::Kind::kGroupStop, .signal = SIGTSTP, .event = abi::kEventStop});
  tracee.Leave(0);
  const EmulatedStop stopped = tracee.InterruptStop();
  EXPECT_EQ(stopped.WaitStatus(), (abi::kEventStop << 16) | (SIGTSTP << 8) | 0x7f);
  EXPECT_EQ(stopped.info.si_code, SIGTSTP | (abi::kEventStop << 8));
  tracee.Enter({.signal = SIGCONT});  // its delivery: the process is no longer stopped
  tracee.Leave(SIGCONT);
  EXPECT_EQ(WSTOPSIG(tracee.InterruptStop().WaitStatus()), SIGTRAP);
}

TEST(EmulatedTracee, ListeningIsOutOfReachUntilTheNextStop) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kSeize);
  tracee.Enter({.kind = EmulatedStop::Kind::kSignal, .signal = SIGSTOP});
  EXPECT_FALSE(tracee.Listen());  // a signal-delivery-stop is no event stop
  tracee.Leave(SIGSTOP);
  tracee.Enter(tracee.InterruptStop());
  EXPECT_TRUE(tracee.Report(true));
  EXPECT_TRUE(tracee.Listen());
  EXPECT_TRUE(tracee.Listening());
  EXPECT_FALSE(tracee.Stopped());
  EXPECT_FALSE(tracee.Report(true));  // nothing new for the tracer's wait
  tracee.Enter(tracee.InterruptStop());
  EXPECT_FALSE(tracee.Listening());
  EXPECT_TRUE(tracee.Report(true));
}

TEST(EmulatedTracee, AnInterruptAskedInAStopIsTakenOnce) {
  EmulatedTracee tracee(10, 10, EmulatedTracee::Origin::kSeize);
  EXPECT_FALSE(tracee.TakeInterrupt());
  tracee.AskInterrupt();
  EXPECT_TRUE(tracee.InterruptAsked());
  EXPECT_TRUE(tracee.TakeInterrupt());
  EXPECT_FALSE(tracee.TakeInterrupt());
}

}  // namespace
}  // namespace chess::supervisor
