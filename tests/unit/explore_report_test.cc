// The report of a search that pruned branches: it never says its bound was covered, in words or
// in JSON, and it says where the executions parted, the likely cause, and what to try.
#include "cli/explore_report.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "supervisor/world/isolation.h"

namespace chess::cli {
namespace {

constexpr uint64_t kExploreDefault = CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | supervisor::kPrivateTmp;

// The user's report: one schedule ran, every branch of it diverged and was pruned.
search::ExplorationResult PrunedSearch() {
  search::ExplorationResult result;
  result.executions = 17;
  result.divergences = 16;
  result.end = search::SearchEnd::kPruned;
  result.coverage.schedules = 1;
  result.coverage.pruned = 8;
  search::PrunedBranch branch;
  branch.execution = 3;
  branch.replayed = 1;
  branch.where.decision = 2;
  search::RecordedDecision expected;
  expected.current = search::ThreadId{0};
  expected.point.syscall = 56;
  branch.where.expected = expected;
  branch.where.found_thread = search::ThreadId{0};
  branch.where.message = "decision 2: the recording had thread 0 stopped …";
  branch.stopped = search::StoppedThread{0, "openat(AT_FDCWD, \"tally.1.out\", O_WRONLY|O_CREAT|O_EXCL, 0644)",
                                         {"__open64+0x51 (libc.so.6)", "main+0x4d (prog)"}};
  search::Difference cause;
  search::SyscallEvent before;
  before.thread = search::ThreadId{0};
  before.syscall = 257;
  before.exit = true;
  before.result = -ENOENT;
  before.sample = "nothing";
  before.target = "/work/dir/tally.0.out";
  search::SyscallEvent after = before;
  after.result = 0;
  after.sample = "a regular file of 16 bytes";
  cause.expected = before;
  cause.found = after;
  branch.cause = cause;
  result.pruned_branches.push_back(branch);
  return result;
}

SearchSummary Summary(const search::ExplorationResult& result) {
  SearchSummary summary;
  summary.result = &result;
  summary.preemption_bound = 2;
  summary.divergence.cwd = "/work/dir";
  summary.divergence.isolation = kExploreDefault;
  return summary;
}

TEST(ExploreReport, APrunedSearchSaysItsBoundIsNotCovered) {
  const search::ExplorationResult result = PrunedSearch();
  const SearchSummary summary = Summary(result);
  EXPECT_EQ(CoverageSentence(summary).rfind("the bound is not covered: 8 branches were pruned after diverging", 0), 0u)
      << CoverageSentence(summary);
  const std::string text = ExploreTextReport(summary);
  EXPECT_EQ(text.rfind("chess-trace: no bug found, but the bound is not covered:", 0), 0u) << text;
  EXPECT_EQ(text.find("its only schedule explored"), std::string::npos) << text;
  EXPECT_EQ(text.find("no bug: "), std::string::npos) << text;
  // Where and why, and what to try.
  EXPECT_NE(text.find("where the executions diverged (the first of 8 pruned branches):"), std::string::npos) << text;
  EXPECT_NE(text.find("execution 3, replaying execution 1, parted from it at decision 2: execution 1 had thread 0 "
                      "stop in " + search::NameSyscall(56) + " there, execution 3 had thread 0 stop in openat"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("openat(AT_FDCWD, \"tally.1.out\""), std::string::npos) << text;
  EXPECT_NE(text.find("#1 main+0x4d (prog)"), std::string::npos) << text;
  EXPECT_NE(text.find("likely cause: thread 0's " + search::NameSyscall(257) +
                      " of tally.0.out found nothing there in execution 1, and a regular file of 16 bytes in "
                      "execution 3: tally.0.out is in the working directory /work/dir, which the executions share, "
                      "and an earlier execution created it"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("try: --isolate pid,uts,ipc,mnt,tmp,cwd"), std::string::npos) << text;
}

TEST(ExploreReport, APrunedSearchIsNeitherCompleteNorExhaustedInJson) {
  const search::ExplorationResult result = PrunedSearch();
  const std::string json = ExploreJsonReport(Summary(result));
  EXPECT_NE(json.find(R"("complete":false)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("exhausted":false)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("stopped_by":"pruned")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("outcome":"none")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("pruned_branches":{"count":8,"described":[{"execution":3,"replayed":1,"decision":2,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("expected":{"thread":0,)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("call":"openat(AT_FDCWD, \"tally.1.out\")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("cause":{"kind":"working-directory","path":"/work/dir/tally.0.out","thread":0,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("in_replayed":"nothing","in_execution":"a regular file of 16 bytes")"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("remedy":"--isolate pid,uts,ipc,mnt,tmp,cwd)"), std::string::npos) << json;
}

TEST(ExploreReport, ABranchPrunedForAReasonTheBackendGaveIsToldInItsWords) {
  search::ExplorationResult result = PrunedSearch();
  search::PrunedBranch& branch = result.pruned_branches.front();
  branch.where = search::DivergencePoint{};
  branch.where.message = "the execution forked from the template is not the one asked for (decision 3)";
  branch.cause.reset();
  const std::string text = ExploreTextReport(Summary(result));
  EXPECT_NE(text.find("execution 3, replaying execution 1, could not follow it: the execution forked from the "
                      "template is not the one asked for (decision 3)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("parted from it at decision"), std::string::npos) << text;
}

TEST(ExploreReport, ASearchThatStoppedAtABugStillCountsWhatItPruned) {
  search::ExplorationResult result = PrunedSearch();
  result.end = search::SearchEnd::kBug;
  result.coverage.bound_completed = 0;
  result.bound = 1;
  const std::string sentence = CoverageSentence(Summary(result));
  EXPECT_NE(sentence.find("8 branches pruned after diverging twice (what they lead to was not searched)"),
            std::string::npos)
      << sentence;
}

TEST(ExploreReport, DelayBoundingToldInDelays) {
  search::ExplorationResult result;
  result.coverage.strategy = search::StrategyKind::kDb;
  result.coverage.schedules = 28;
  result.coverage.complete = true;
  result.coverage.bound_completed = 2;
  result.end = search::SearchEnd::kBoundExplored;
  SearchSummary summary = Summary(result);
  summary.delay_bound = 2;
  EXPECT_EQ(CoverageSentence(summary), "all 28 schedules with ≤ 2 delays explored");

  result.end = search::SearchEnd::kExhausted;
  result.coverage.bound_completed = 3;
  EXPECT_EQ(CoverageSentence(summary), "all 28 schedules explored (none needs more than 3 delays)");

  result.end = search::SearchEnd::kMaxExecutions;
  result.coverage.complete = false;
  result.coverage.bound_completed = 0;
  result.bound = 1;
  summary.max_executions = 28;
  EXPECT_EQ(CoverageSentence(summary),
            "28 schedules explored: all those with no delay, and part of those with 1 delay (--max-executions 28 "
            "reached)");

  // The same search by pb is told in preemptions.
  result.coverage.strategy = search::StrategyKind::kPb;
  summary.delay_bound.reset();
  EXPECT_EQ(CoverageSentence(summary),
            "28 schedules explored: all those with no preemption, and part of those with 1 preemption "
            "(--max-executions 28 reached)");
}

TEST(ExploreReport, TheCauseIsClassifiedByWhereTheNameIs) {
  search::ExplorationResult result = PrunedSearch();
  search::PrunedBranch branch = result.pruned_branches.front();
  DivergenceContext context{"/work/dir", kExploreDefault, {}};
  EXPECT_EQ(ClassifyCause(branch, context).kind, "working-directory");

  // Under a shared /tmp: --isolate …,tmp is the remedy.
  branch.cause->found.target = "/tmp/lock";
  context.isolation = CLONE_NEWPID | CLONE_NEWNS;
  const DivergenceCause tmp = ClassifyCause(branch, context);
  EXPECT_EQ(tmp.kind, "tmp");
  EXPECT_EQ(tmp.remedy.rfind("--isolate pid,mnt,tmp", 0), 0u) << tmp.remedy;

  // Elsewhere: nothing --isolate can do.
  branch.cause->found.target = "/home/someone/.cache/state";
  const DivergenceCause elsewhere = ClassifyCause(branch, context);
  EXPECT_EQ(elsewhere.kind, "shared-file");
  EXPECT_NE(elsewhere.remedy.rfind("--isolate ", 0), 0u) << elsewhere.remedy;

  // Nothing watched differed, but the working directory changed: that is still the suspect.
  branch.cause.reset();
  context.cwd_changes = {"state.db changed"};
  const DivergenceCause changed = ClassifyCause(branch, context);
  EXPECT_EQ(changed.kind, "working-directory");
  EXPECT_NE(changed.explanation.find("state.db changed"), std::string::npos);

  // …unless each execution had its own; then chess-trace does not know, and says how to find out.
  context.isolation |= supervisor::kPrivateCwd;
  const DivergenceCause unknown = ClassifyCause(branch, context);
  EXPECT_EQ(unknown.kind, "unknown");
  EXPECT_NE(unknown.remedy.find("--check-determinism"), std::string::npos);
}

TEST(DirectoryListingTest, SaysWhatWasCreatedChangedAndRemoved) {
  char pattern[] = "/tmp/chess-listing-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::ofstream(dir + "/kept") << "a";
  std::ofstream(dir + "/grown") << "a";
  std::ofstream(dir + "/gone") << "a";
  const DirectoryListing before = DirectoryListing::Take(dir);
  EXPECT_TRUE(before.ChangesTo(DirectoryListing::Take(dir)).empty());
  std::ofstream(dir + "/grown", std::ios::app) << "more";
  std::ofstream(dir + "/new") << "b";
  unlink((dir + "/gone").c_str());
  const std::vector<std::string> changes = before.ChangesTo(DirectoryListing::Take(dir));
  EXPECT_EQ(changes, (std::vector<std::string>{"gone removed", "grown changed", "new created"}));
  // A listing cut short by its limit claims no change.
  EXPECT_TRUE(DirectoryListing::Take(dir, 1).ChangesTo(DirectoryListing::Take(dir, 1)).empty());
  for (const char* name : {"kept", "grown", "new"}) unlink((dir + "/" + name).c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace chess::cli
