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

}  // namespace
}  // namespace chess::supervisor
