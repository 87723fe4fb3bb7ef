#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <type_traits>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

using F = seccomp::SyscallFamily;

TEST(HandlerFor, EveryFamilyHasAHandlerOfItsOwn) {
  std::set<Disposition (*)(SyscallContext&)> entries;
  for (size_t i = 0; i < seccomp::kFamilyCount; ++i) {
    const FamilyHandler handler = HandlerFor(static_cast<F>(i));
    ASSERT_NE(handler.on_entry, nullptr) << seccomp::kFamilies[i].name;
    EXPECT_TRUE(entries.insert(handler.on_entry).second) << seccomp::kFamilies[i].name;
  }
}

// The mapping the switch in HandlerFor had before the registry.
TEST(HandlerFor, ReturnsTheHandlerTheSwitchReturned) {
  const std::pair<F, FamilyHandler (*)()> mapping[] = {
      {F::kFutex, FutexHandler},         {F::kClone, CloneHandler},         {F::kExit, ExitHandler},
      {F::kExec, ExecHandler},           {F::kYield, YieldHandler},         {F::kSleep, SleepHandler},
      {F::kThreadSetup, ThreadSetupHandler}, {F::kAffinity, AffinityHandler}, {F::kRefused, RefusedHandler},
      {F::kHypercall, HypercallHandler}, {F::kWait, WaitHandler},           {F::kSignal, SignalHandler},
      {F::kInput, InputHandler},         {F::kOutput, OutputHandler},       {F::kPoll, PollHandler},
      {F::kSplice, SpliceHandler},       {F::kSignalWait, SignalWaitHandler}, {F::kRestart, RestartHandler},
      {F::kFileLock, FileLockHandler},   {F::kIpc, IpcHandler},             {F::kTime, TimeHandler},
      {F::kRandom, RandomHandler},       {F::kTimer, TimerHandler},         {F::kPublish, PublishHandler},
      {F::kSeccomp, SeccompHandler},     {F::kSignalState, SignalStateHandler}, {F::kPrctl, PrctlHandler},
      {F::kClockSet, ClockSetHandler},
      {F::kPtrace, PtraceHandler},       {F::kCodeMapping, CodeMappingHandler},
  };
  ASSERT_EQ(std::size(mapping), seccomp::kFamilyCount);
  for (const auto& [family, handler_of] : mapping) {
    const FamilyHandler expected = handler_of();
    const FamilyHandler actual = HandlerFor(family);
    const std::string_view name = seccomp::PropertiesOf(family).name;
    EXPECT_EQ(actual.on_entry, expected.on_entry) << name;
    EXPECT_EQ(actual.execute, expected.execute) << name;
    EXPECT_EQ(actual.on_exit, expected.on_exit) << name;
    EXPECT_EQ(actual.on_timeout, expected.on_timeout) << name;
    EXPECT_EQ(actual.ready, expected.ready) << name;
    EXPECT_EQ(actual.on_signal, expected.on_signal) << name;
  }
}

// Each hook's answer type holds only what is legal there: an illegal answer does not compile.
template <typename Answer>
concept AnswersPoint = requires { Answer::Point(search::OpKind::kSyscall, 0); };
template <typename Answer>
concept AnswersYield = requires { Answer::Yield(0); };
template <typename Answer>
concept AnswersBlock = requires { Answer::Block(); };
template <typename Answer>
concept AnswersNativeThenExit = requires { Answer::NativeThenExit(); };
template <typename Answer>
concept AnswersStayInside = requires { Answer::StayInside(); };
template <typename Answer>
concept AnswersNativeWithRegisters = requires { Answer::NativeWithRegisters(); };

static_assert(AnswersPoint<Disposition> && AnswersYield<Disposition> && AnswersBlock<Disposition>);
static_assert(!AnswersPoint<ExecuteAnswer> && !AnswersYield<ExecuteAnswer>);
static_assert(AnswersBlock<ExecuteAnswer> && AnswersNativeThenExit<ExecuteAnswer>);
static_assert(AnswersStayInside<ExitAnswer> && AnswersNativeWithRegisters<ExitAnswer>);
static_assert(!AnswersPoint<ExitAnswer> && !AnswersBlock<ExitAnswer> && !AnswersNativeThenExit<ExitAnswer>);
static_assert(AnswersNativeWithRegisters<TimeoutAnswer>);
static_assert(!AnswersBlock<TimeoutAnswer> && !AnswersNativeThenExit<TimeoutAnswer> && !AnswersPoint<TimeoutAnswer>);
static_assert(AnswersNativeThenExit<SignalAnswer>);
static_assert(!AnswersBlock<SignalAnswer> && !AnswersNativeWithRegisters<SignalAnswer> && !AnswersPoint<SignalAnswer>);
// The answers share their fields and factories (HookAnswer), not their identity: one hook's
// answer is no other's.
static_assert(!std::is_convertible_v<ExecuteAnswer, ExitAnswer> && !std::is_convertible_v<ExitAnswer, ExecuteAnswer>);
static_assert(!std::is_convertible_v<ExitAnswer, TimeoutAnswer> && !std::is_convertible_v<TimeoutAnswer, ExitAnswer>);
static_assert(!std::is_convertible_v<ExecuteAnswer, TimeoutAnswer> && !std::is_convertible_v<TimeoutAnswer, ExecuteAnswer>);
static_assert(std::is_same_v<decltype(ExitAnswer::Native()), ExitAnswer> &&
              std::is_same_v<decltype(ExecuteAnswer::Complete(0)), ExecuteAnswer> &&
              std::is_same_v<decltype(TimeoutAnswer::NativeWithRegisters()), TimeoutAnswer>);
// Answered at every stop: plain values that come back in two registers.
static_assert(std::is_trivially_copyable_v<ExecuteAnswer> && sizeof(ExecuteAnswer) <= 16);
static_assert(std::is_trivially_copyable_v<ExitAnswer> && sizeof(ExitAnswer) <= 16);
static_assert(std::is_trivially_copyable_v<TimeoutAnswer> && sizeof(TimeoutAnswer) <= 16);
static_assert(std::is_trivially_copyable_v<SignalAnswer> && sizeof(SignalAnswer) <= 16);

void ExpectSame(const Disposition& actual, const Disposition& expected) {
  EXPECT_EQ(actual.kind, expected.kind);
  EXPECT_EQ(actual.value, expected.value);
  EXPECT_EQ(actual.registers_changed, expected.registers_changed);
}

// An entry reuses the logic of `execute` and `on_signal` (a wait4 that need not be a point, a
// signal already pending at a sigsuspend): their answers mean the same there.
TEST(Answers, ThoseOfExecuteAndOnSignalAreTheSameAnswersAtEntry) {
  ExpectSame(ExecuteAnswer::Complete(-EAGAIN), Disposition::Complete(-EAGAIN));
  ExpectSame(ExecuteAnswer::Native(), Disposition::Native());
  ExpectSame(ExecuteAnswer::NativeWithRegisters(), Disposition::NativeWithRegisters());
  ExpectSame(ExecuteAnswer::NativeThenExit(), Disposition::NativeThenExit());
  ExpectSame(ExecuteAnswer::Block(), Disposition::Block());
  ExpectSame(SignalAnswer::Complete(-EINTR), Disposition::Complete(-EINTR));
  ExpectSame(SignalAnswer::Native(), Disposition::Native());
  ExpectSame(SignalAnswer::NativeThenExit(), Disposition::NativeThenExit());
}

// The factories HookAnswer gives each answer fill that answer's own kinds.
TEST(Answers, TheSharedFactoriesMakeEachHooksOwnKinds) {
  EXPECT_EQ(ExitAnswer::Complete(-EINTR).kind, ExitKind::kComplete);
  EXPECT_EQ(ExitAnswer::Complete(-EINTR).value, -EINTR);
  EXPECT_EQ(ExitAnswer::Native().kind, ExitKind::kNative);
  EXPECT_FALSE(ExitAnswer::Native().registers_changed);
  EXPECT_TRUE(ExitAnswer::NativeWithRegisters().registers_changed);
  EXPECT_EQ(ExitAnswer::StayInside().kind, ExitKind::kStayInside);
  EXPECT_EQ(TimeoutAnswer::Complete(-ETIMEDOUT).kind, TimeoutKind::kComplete);
  EXPECT_EQ(TimeoutAnswer::Complete(-ETIMEDOUT).value, -ETIMEDOUT);
  EXPECT_TRUE(TimeoutAnswer::NativeWithRegisters().registers_changed);
  EXPECT_EQ(ExecuteAnswer::Block().kind, ExecuteKind::kBlock);
  EXPECT_EQ(ExecuteAnswer::NativeThenExit().value, 0);
}

}  // namespace
}  // namespace chess::supervisor
