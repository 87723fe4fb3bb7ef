// Pruned branches and coverage: a model program that finds what its first execution left in a
// shared place (a file in its working directory) and makes one call more from then on. Replays
// of the first execution's decisions part from it where that call comes; those branches are
// pruned, and a search that pruned any never says its bound was covered. Each pruned branch
// says where it parted and, from what the executions found at their shared names, why.
#include <gtest/gtest.h>

#include <cerrno>

#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::search {
namespace {

using test_support::ModelBackend;
using test_support::ModelProgram;
using test_support::Step;
using test_support::T;

constexpr int64_t kOpen = 2;  // the extra call: an open of the file the first execution made

ModelProgram TwoThreadsOfTwoSteps() {
  ModelProgram program;
  program.threads.assign(2, std::vector<Step>(2, Step{}));
  return program;
}

// From the second execution on, thread 0 finds the file and opens it between its two steps.
void FindsWhatTheFirstLeft(std::vector<std::vector<Step>>& threads, uint64_t execution) {
  if (execution > 1) threads[0].insert(threads[0].begin() + 1, Step{Step::kWork, 0, 0, kOpen});
}

// What each execution found at the name it creates: nothing the first time, the file after.
std::vector<SyscallEvent> NameLookups(uint64_t execution) {
  SyscallEvent entry;
  entry.thread = T(0);
  entry.index = 0;
  entry.syscall = kOpen;
  entry.digest = 7;
  entry.target = "/work/dir/out.txt";
  SyscallEvent found = entry;
  found.exit = true;
  found.result = execution == 1 ? -ENOENT : 0;
  found.digest = execution == 1 ? 1 : 2;
  found.sample = execution == 1 ? "nothing" : "a regular file of 3 bytes";
  return {entry, found};
}

ExplorerOptions EverySchedule() {
  ExplorerOptions options;
  options.state_cache = false;
  return options;
}

TEST(PrunedBranchTest, AProgramThatChangesItsOwnWorldCoversNoBound) {
  ModelBackend backend(TwoThreadsOfTwoSteps());
  backend.world_ = FindsWhatTheFirstLeft;
  const ExplorationResult result = Explorer(EverySchedule(), backend).Explore();
  EXPECT_GT(result.coverage.pruned, 0u);
  EXPECT_EQ(result.divergences, 2 * result.coverage.pruned);  // each tried twice
  EXPECT_FALSE(result.coverage.complete);
  EXPECT_EQ(result.end, SearchEnd::kPruned);
  // Round 0 ran whole (its only other branch switches before the open); the first pruned
  // branch is a round-1 one: bound 0 stays covered, and no bound after it.
  EXPECT_EQ(result.coverage.bound_completed, 0u);
  EXPECT_TRUE(result.bugs.empty());

  // The same program in a world it cannot change: every schedule, and the bound covered.
  ModelBackend untouched(TwoThreadsOfTwoSteps());
  const ExplorationResult clean = Explorer(EverySchedule(), untouched).Explore();
  EXPECT_EQ(clean.coverage.pruned, 0u);
  EXPECT_TRUE(clean.coverage.complete);
  EXPECT_NE(clean.end, SearchEnd::kPruned);
  EXPECT_EQ(clean.coverage.bound_completed, 2u);
}

TEST(PrunedBranchTest, APrunedBranchSaysWhereItsExecutionPartedFromTheOneItReplayed) {
  ModelBackend backend(TwoThreadsOfTwoSteps());
  backend.world_ = FindsWhatTheFirstLeft;
  const ExplorationResult result = Explorer(EverySchedule(), backend).Explore();
  ASSERT_FALSE(result.pruned_branches.empty());
  EXPECT_EQ(result.pruned_branches.size(), std::min<uint64_t>(result.coverage.pruned, kDescribedPrunedBranches));
  const PrunedBranch& branch = result.pruned_branches.front();
  EXPECT_EQ(branch.replayed, 1u);
  EXPECT_GT(branch.execution, 2u);  // the retry's number: its first try diverged too
  // Thread 0 stopped at its step 1: the first execution about to make its second step, this
  // one about to make the open.
  ASSERT_TRUE(branch.where.expected.has_value());
  ASSERT_TRUE(branch.where.expected->current.has_value());
  EXPECT_EQ(*branch.where.expected->current, T(0));
  EXPECT_EQ(branch.where.expected->point.syscall, 0);
  ASSERT_TRUE(branch.where.found_thread.has_value());
  EXPECT_EQ(*branch.where.found_thread, T(0));
  EXPECT_EQ(branch.where.found_point.syscall, kOpen);
  EXPECT_EQ(branch.where.found_point.index, branch.where.expected->point.index);
  EXPECT_NE(branch.where.message.find("decision " + std::to_string(branch.where.decision)), std::string::npos);
  // Nothing watched: no cause to name.
  EXPECT_FALSE(branch.cause.has_value());
}

TEST(PrunedBranchTest, TheLikelyCauseIsTheNameTheExecutionsFoundDifferent) {
  ModelBackend backend(TwoThreadsOfTwoSteps());
  backend.world_ = FindsWhatTheFirstLeft;
  backend.names_ = NameLookups;
  const ExplorationResult result = Explorer(EverySchedule(), backend).Explore();
  ASSERT_FALSE(result.pruned_branches.empty());
  for (const PrunedBranch& branch : result.pruned_branches) {
    ASSERT_TRUE(branch.cause.has_value());
    ASSERT_TRUE(branch.cause->expected.has_value());
    EXPECT_EQ(branch.cause->expected->result, -ENOENT);
    EXPECT_EQ(branch.cause->expected->sample, "nothing");
    EXPECT_EQ(branch.cause->found.result, 0);
    EXPECT_EQ(branch.cause->found.sample, "a regular file of 3 bytes");
    EXPECT_EQ(branch.cause->found.target, "/work/dir/out.txt");
    EXPECT_EQ(branch.cause->found.syscall, kOpen);
  }

  // Executions that found the same there name no cause, even when they part for another reason.
  ModelBackend same(TwoThreadsOfTwoSteps());
  same.world_ = FindsWhatTheFirstLeft;
  same.names_ = [](uint64_t) { return NameLookups(2); };
  const ExplorationResult unexplained = Explorer(EverySchedule(), same).Explore();
  ASSERT_FALSE(unexplained.pruned_branches.empty());
  EXPECT_FALSE(unexplained.pruned_branches.front().cause.has_value());
}

TEST(PrunedBranchTest, ABranchWhoseRetryFollowsIsNotPrunedAndTheBoundStaysCovered) {
  ModelBackend flaky(TwoThreadsOfTwoSteps());
  flaky.diverge_at_ = [](uint64_t execution, uint64_t decision) -> std::optional<bool> {
    return execution == 2 && decision == 0;
  };
  const ExplorationResult result = Explorer(EverySchedule(), flaky).Explore();
  EXPECT_EQ(result.divergences, 1u);
  EXPECT_EQ(result.coverage.pruned, 0u);
  EXPECT_TRUE(result.pruned_branches.empty());
  EXPECT_TRUE(result.coverage.complete);
}

TEST(PrunedBranchTest, ADivergenceTheBackendFoundItselfIsDescribedInItsWords) {
  // Not at a decision the replay compared (a fork that was not the execution asked for): the
  // backend's message is all there is to say.
  ModelBackend backend(TwoThreadsOfTwoSteps());
  backend.diverge_at_ = [](uint64_t execution, uint64_t decision) -> std::optional<bool> {
    return (execution == 2 || execution == 3) && decision == 0;
  };
  const ExplorationResult result = Explorer(EverySchedule(), backend).Explore();
  ASSERT_EQ(result.pruned_branches.size(), 1u);
  const PrunedBranch& branch = result.pruned_branches.front();
  EXPECT_EQ(branch.execution, 3u);
  EXPECT_EQ(branch.replayed, 1u);
  EXPECT_EQ(branch.where.message, "model divergence");
  EXPECT_FALSE(branch.where.expected.has_value());
  EXPECT_FALSE(branch.where.found_thread.has_value());
  EXPECT_FALSE(result.coverage.complete);
}

TEST(PrunedBranchTest, OnlyTheFirstFewPrunedBranchesAreDescribed) {
  // Three threads of three steps, each execution after the first with one more call in thread 0:
  // many branches pruned, a few described.
  ModelProgram program;
  program.threads.assign(3, std::vector<Step>(3, Step{}));
  ModelBackend backend(program);
  backend.world_ = FindsWhatTheFirstLeft;
  const ExplorationResult result = Explorer(EverySchedule(), backend).Explore();
  EXPECT_GT(result.coverage.pruned, kDescribedPrunedBranches);
  EXPECT_EQ(result.pruned_branches.size(), kDescribedPrunedBranches);
  EXPECT_FALSE(result.coverage.complete);
}

}  // namespace
}  // namespace chess::search
