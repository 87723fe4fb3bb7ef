// The kernel's rules for SIGSEGV that an emulated rdtsc must undo (supervisor/forced_signal.h).
#include "supervisor/forced_signal.h"

#include <signal.h>

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

constexpr uint64_t Bit(int signal) { return uint64_t{1} << (signal - 1); }

TEST(BlockedAfterMaskChange, FollowsEachHow) {
  EXPECT_EQ(BlockedAfterMaskChange(false, SIG_BLOCK, Bit(SIGSEGV), SIGSEGV), true);
  EXPECT_EQ(BlockedAfterMaskChange(true, SIG_BLOCK, Bit(SIGUSR1), SIGSEGV), true);
  EXPECT_EQ(BlockedAfterMaskChange(false, SIG_BLOCK, Bit(SIGUSR1), SIGSEGV), false);
  EXPECT_EQ(BlockedAfterMaskChange(true, SIG_UNBLOCK, Bit(SIGSEGV), SIGSEGV), false);
  EXPECT_EQ(BlockedAfterMaskChange(true, SIG_UNBLOCK, Bit(SIGUSR1), SIGSEGV), true);
  EXPECT_EQ(BlockedAfterMaskChange(true, SIG_SETMASK, Bit(SIGUSR1), SIGSEGV), false);
  EXPECT_EQ(BlockedAfterMaskChange(false, SIG_SETMASK, ~uint64_t{0}, SIGSEGV), true);
}

TEST(BlockedAfterMaskChange, AnUnknownHowFailsAndChangesNothing) {
  EXPECT_EQ(BlockedAfterMaskChange(true, 3, 0, SIGSEGV), std::nullopt);
}

TEST(SignalAction, ExecKeepsIgnoredAndDropsHandlers) {
  const SignalAction handler{.handler = 0x401000, .flags = SA_SIGINFO, .restorer = 0x402000, .mask = Bit(SIGUSR1)};
  EXPECT_TRUE(handler.AfterExec().Default());
  EXPECT_EQ(handler.AfterExec().mask, 0u);
  const SignalAction ignored{.handler = 1, .flags = SA_RESTART};
  EXPECT_TRUE(ignored.AfterExec().Ignored());
  EXPECT_EQ(ignored.AfterExec().flags, uint64_t{SA_RESTART});
  EXPECT_TRUE(SignalAction{}.AfterExec().Default());
}

TEST(LossOfForcedSignal, OnlyABlockedOrIgnoredSignalLosesAnything) {
  const SignalAction handler{.handler = 0x401000};
  const SignalAction ignored{.handler = 1};
  const SignalAction by_default{};
  // Unblocked with a handler or SIG_DFL: the kernel changes nothing (ld.so's rdtscs).
  EXPECT_FALSE(LossOfForcedSignal(false, handler).Any());
  EXPECT_FALSE(LossOfForcedSignal(false, by_default).Any());
  // Blocked: unblocked, and a handler reset to SIG_DFL.
  EXPECT_TRUE(LossOfForcedSignal(true, handler).unblocked);
  EXPECT_TRUE(LossOfForcedSignal(true, handler).action_reset);
  EXPECT_TRUE(LossOfForcedSignal(true, by_default).unblocked);
  EXPECT_FALSE(LossOfForcedSignal(true, by_default).action_reset);
  // Ignored: reset to SIG_DFL, blocked or not.
  EXPECT_FALSE(LossOfForcedSignal(false, ignored).unblocked);
  EXPECT_TRUE(LossOfForcedSignal(false, ignored).action_reset);
  EXPECT_TRUE(LossOfForcedSignal(true, ignored).action_reset);
}

TEST(SignalActions, AHandlerRunsUnderItsMaskAndWithoutSaNodeferItsOwnSignal) {
  SignalActions actions;
  actions.Set(SIGUSR1, {.handler = 0x401000, .mask = Bit(SIGSEGV)});
  actions.Set(SIGUSR2, {.handler = 0x401000, .mask = Bit(SIGINT)});
  actions.Set(SIGSEGV, {.handler = 0x401000});
  EXPECT_EQ(actions.Deliver(SIGUSR1), Bit(SIGSEGV) | Bit(SIGUSR1));
  EXPECT_EQ(actions.Deliver(SIGUSR2), Bit(SIGINT) | Bit(SIGUSR2));
  EXPECT_EQ(actions.Deliver(SIGSEGV), Bit(SIGSEGV));
  actions.Set(SIGSEGV, {.handler = 0x401000, .flags = SA_NODEFER});
  EXPECT_EQ(actions.Deliver(SIGSEGV), 0u);
}

TEST(SignalActions, NoHandlerNoMaskAndResetHandDropsTheHandler) {
  SignalActions actions;
  actions.Set(SIGUSR1, {.handler = 1, .mask = Bit(SIGSEGV)});  // ignored: nothing runs
  EXPECT_EQ(actions.Deliver(SIGUSR1), 0u);
  EXPECT_EQ(actions.Deliver(SIGUSR2), 0u);  // SIG_DFL
  actions.Set(SIGUSR2, {.handler = 0x401000, .flags = SA_RESETHAND, .mask = Bit(SIGSEGV)});
  EXPECT_EQ(actions.Deliver(SIGUSR2), Bit(SIGSEGV) | Bit(SIGUSR2));
  EXPECT_TRUE(actions.Of(SIGUSR2).Default());
  EXPECT_EQ(actions.Deliver(SIGUSR2), 0u);
}

TEST(SignalActions, ExecResetsEveryHandlerAndKeepsIgnored) {
  SignalActions actions;
  actions.Set(SIGSEGV, {.handler = 0x401000});
  actions.Set(SIGPIPE, {.handler = 1});
  actions.Set(64, {.handler = 0x401000});
  actions.ResetForExec();
  EXPECT_TRUE(actions.Of(SIGSEGV).Default());
  EXPECT_TRUE(actions.Of(SIGPIPE).Ignored());
  EXPECT_TRUE(actions.Of(64).Default());
}

TEST(ForcedSignalShadow, ThreadsShareTheActionsAndANewProcessCopiesThem) {
  ForcedSignalShadow creator;
  ForcedSignalShadow thread = creator.ForNewThread();
  ForcedSignalShadow process = creator.ForNewProcess();
  creator.ActionSet(SIGSEGV, {.handler = 0x401000});
  EXPECT_EQ(thread.Action(SIGSEGV).handler, 0x401000u);
  EXPECT_TRUE(process.Action(SIGSEGV).Default());
  process.ActionSet(SIGSEGV, {.handler = 1});
  EXPECT_EQ(creator.Action(SIGSEGV).handler, 0x401000u);
}

TEST(ForcedSignalShadow, TheMaskIsEachThreadsAndACreatorsAtTheStart) {
  ForcedSignalShadow creator;
  creator.ActionSet(SIGSEGV, {.handler = 0x401000});
  creator.MaskChanged(SIG_BLOCK, Bit(SIGSEGV));
  ForcedSignalShadow thread = creator.ForNewThread();
  EXPECT_TRUE(thread.Loss(SIGSEGV).unblocked);
  thread.MaskChanged(SIG_UNBLOCK, Bit(SIGSEGV));
  EXPECT_FALSE(thread.Loss(SIGSEGV).Any());
  EXPECT_TRUE(creator.Loss(SIGSEGV).unblocked);
  creator.MaskChanged(99, 0);  // EINVAL: nothing changes
  EXPECT_TRUE(creator.Loss(SIGSEGV).unblocked);
}

TEST(ForcedSignalShadow, AHandlersMaskLastsUntilItsReturnRestoresTheMaskOfBefore) {
  ForcedSignalShadow shadow;
  shadow.ActionSet(SIGSEGV, {.handler = 0x401000});
  shadow.ActionSet(SIGUSR1, {.handler = 0x402000, .mask = Bit(SIGSEGV)});
  shadow.Delivered(SIGUSR1);
  EXPECT_TRUE(shadow.Loss(SIGSEGV).unblocked);
  EXPECT_TRUE(shadow.Loss(SIGSEGV).action_reset);
  shadow.MaskIs(Bit(SIGUSR2));  // rt_sigreturn
  EXPECT_FALSE(shadow.Loss(SIGSEGV).Any());
}

TEST(ForcedSignalShadow, AnExecDropsHandlersKeepsIgnoredAndReadsTheMask) {
  ForcedSignalShadow shadow;
  shadow.ActionSet(SIGSEGV, {.handler = 0x401000});
  shadow.Exec(Bit(SIGSEGV));
  EXPECT_TRUE(shadow.Action(SIGSEGV).Default());
  EXPECT_TRUE(shadow.Loss(SIGSEGV).unblocked);
  EXPECT_FALSE(shadow.Loss(SIGSEGV).action_reset);
  shadow.ActionSet(SIGSEGV, {.handler = 1});
  shadow.Exec(std::nullopt);  // the mask could not be read: the one known stays
  EXPECT_TRUE(shadow.Action(SIGSEGV).Ignored());
  EXPECT_TRUE(shadow.Loss(SIGSEGV).unblocked);
  EXPECT_TRUE(shadow.Loss(SIGSEGV).action_reset);
}

TEST(ForcedSignalShadow, TheProgramsOwnRdtscModeIsKeptAndInherited) {
  ForcedSignalShadow shadow;
  EXPECT_EQ(shadow.TimestampCounter(), TimestampCounterMode::kEnabled);
  EXPECT_FALSE(shadow.ProgramWantsFault());
  shadow.SetTimestampCounter(TimestampCounterMode::kFaults);
  EXPECT_TRUE(shadow.ProgramWantsFault());
  EXPECT_TRUE(shadow.ForNewProcess().ProgramWantsFault());
  EXPECT_TRUE(shadow.ForNewThread().ProgramWantsFault());
}

TEST(ForcedSignalShadow, SigtrapIsShadowedBesideSigsegvEachWithItsOwnBit) {
  ForcedSignalShadow shadow;
  shadow.ActionSet(SIGTRAP, {.handler = 0x403000});
  shadow.MaskChanged(SIG_BLOCK, Bit(SIGTRAP));
  EXPECT_TRUE(shadow.Loss(SIGTRAP).unblocked);
  EXPECT_TRUE(shadow.Loss(SIGTRAP).action_reset);
  EXPECT_FALSE(shadow.Loss(SIGSEGV).Any());
  shadow.ActionSet(SIGUSR1, {.handler = 0x402000, .mask = Bit(SIGSEGV)});
  shadow.MaskChanged(SIG_UNBLOCK, Bit(SIGTRAP));
  shadow.Delivered(SIGUSR1);
  EXPECT_FALSE(shadow.Loss(SIGTRAP).Any());
  EXPECT_TRUE(shadow.Loss(SIGSEGV).unblocked);
  shadow.MaskChanged(99, Bit(SIGTRAP));  // EINVAL: neither bit changes
  EXPECT_FALSE(shadow.Loss(SIGTRAP).Any());
  shadow.MaskIs(Bit(SIGTRAP));
  EXPECT_TRUE(shadow.Loss(SIGTRAP).unblocked);
  EXPECT_FALSE(shadow.Loss(SIGSEGV).Any());
}

}  // namespace
}  // namespace chess::supervisor
