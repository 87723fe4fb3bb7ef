#include <gtest/gtest.h>

#include <set>

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
      {F::kSeccomp, SeccompHandler},
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

}  // namespace
}  // namespace chess::supervisor
