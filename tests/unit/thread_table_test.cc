// The ids the program sees (supervisor/thread_table.h): a process it names by a pid is found in
// the namespace of the one that names it.
#include "supervisor/thread_table.h"

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

Process WithIds(std::vector<pid_t> ns_pids) {
  Process process;
  process.program_pid = ns_pids.back();
  process.ns_pids = std::move(ns_pids);
  return process;
}

TEST(ThreadTable, APidIsSeenInTheNamespaceOfTheViewer) {
  const Process root = WithIds({2});             // the program, in chess-trace's namespace for it
  const Process init = WithIds({3, 1});          // pid 1 of a namespace the program made
  const Process inner = WithIds({5, 3});         // a child of that init
  const Process deeper = WithIds({6, 4, 1});     // the init of a namespace below that one
  EXPECT_EQ(PidSeenBy(root, init), 3);
  EXPECT_EQ(PidSeenBy(root, inner), 5);  // not 3: that is the init, as the root names it
  EXPECT_EQ(PidSeenBy(init, inner), 3);
  EXPECT_EQ(PidSeenBy(init, deeper), 4);
  EXPECT_EQ(PidSeenBy(deeper, deeper), 1);
  EXPECT_EQ(PidSeenBy(inner, root), 0);  // above it: it has no pid there
}

TEST(ThreadTable, WithoutTranslationTheIdsAreChessTracesOwn) {
  ThreadTable threads;
  Process& root = threads.AddProcess(4100, 1);
  Thread& main_thread = threads.AddThread(4100, root);
  Process& child = threads.AddProcess(4102, 2);
  child.parent = root.tgid;
  threads.AddThread(4102, child);
  EXPECT_EQ(root.ns_pids, std::vector<pid_t>{4100});
  EXPECT_EQ(main_thread.ns_tids, std::vector<pid_t>{4100});
  EXPECT_EQ(PidSeenBy(root, child), 4102);
  EXPECT_EQ(threads.FindByProgramPid(4102, &root), &child);
  EXPECT_EQ(threads.FindByProgramTid(4100, &child), &main_thread);
  EXPECT_EQ(threads.FindByProgramPid(4103, &root), nullptr);
}

// The kernel sleepers (kernel_sleep.cc) are kept as threads enter and leave the sleep, and
// never hold a dead thread: a decision settles them alone.
TEST(ThreadTable, KernelSleepersAreThoseAsleepInTheKernel) {
  ThreadTable threads;
  Process& process = threads.AddProcess(4100, 1);
  Thread& main_thread = threads.AddThread(4100, process);
  Thread& other = threads.AddThread(4101, process);
  EXPECT_TRUE(threads.KernelSleepers().empty());
  threads.MoveParkedCall(other, ParkedCall::At::kReentering);
  threads.MoveParkedCall(main_thread, ParkedCall::At::kReentering);
  threads.MoveParkedCall(main_thread, ParkedCall::At::kAsleepInside);
  EXPECT_EQ(threads.KernelSleepers().size(), 2u);
  EXPECT_EQ(threads.KernelSleepers().begin()->second, &main_thread);  // in creation order
  threads.MoveParkedCall(main_thread, ParkedCall::At::kExit);  // the kernel woke it
  EXPECT_EQ(main_thread.parked.at, ParkedCall::At::kExit);
  ASSERT_EQ(threads.KernelSleepers().size(), 1u);
  EXPECT_EQ(threads.KernelSleepers().begin()->second, &other);
  threads.MoveParkedCall(other, ParkedCall::At::kNone);  // a signal, a group stop ended it
  EXPECT_TRUE(threads.KernelSleepers().empty());
  threads.MoveParkedCall(main_thread, ParkedCall::At::kEntry);  // nothing to do with a sleep
  EXPECT_TRUE(threads.KernelSleepers().empty());
}

TEST(ThreadTable, ADeadThreadIsNoKernelSleeper) {
  ThreadTable threads;
  Process& process = threads.AddProcess(4100, 1);
  Thread& leader = threads.AddThread(4100, process);
  Thread& execer = threads.AddThread(4101, process);
  Thread& killed = threads.AddThread(4102, process);
  threads.MoveParkedCall(killed, ParkedCall::At::kAsleepInside);
  threads.MarkDead(killed);  // its exit, or a kill
  EXPECT_TRUE(threads.KernelSleepers().empty());
  threads.MoveParkedCall(killed, ParkedCall::At::kAsleepInside);  // a dead thread enters no sleep
  EXPECT_TRUE(threads.KernelSleepers().empty());
  threads.MoveParkedCall(leader, ParkedCall::At::kAsleepInside);
  ASSERT_EQ(threads.KernelSleepers().size(), 1u);
  threads.RenameAfterExec(execer, leader.tid);  // a sibling's exec ends every other thread
  EXPECT_EQ(leader.state, ThreadState::kDead);
  EXPECT_TRUE(threads.KernelSleepers().empty());
}

}  // namespace
}  // namespace chess::supervisor
