// What explore and run conclude from refusals and from what a search could see
// (cli/refusals.h, cli/visibility.h).
#include <gtest/gtest.h>

#include <cerrno>

#include "cli/refusals.h"
#include "cli/visibility.h"

namespace chess::cli {
namespace {

supervisor::ExecutionResult Failed(search::Outcome outcome, std::vector<supervisor::RefusedCall> refused) {
  supervisor::ExecutionResult result;
  result.outcome = outcome;
  result.exit_status = outcome == search::Outcome::kExitStatus ? std::optional<int>(1) : std::nullopt;
  result.refused = std::move(refused);
  return result;
}

const supervisor::RefusedCall kIoUring{"io_uring_setup", ENOSYS, 2, "io_uring bypasses the filter"};

TEST(RefusalJudge, AFailureAfterARefusalIsUnsupportedAndNamesTheCall) {
  RefusalJudge judge;
  std::string message;
  const auto result = Failed(search::Outcome::kExitStatus, {kIoUring});
  EXPECT_EQ(judge.Judge(result, search::Outcome::kExitStatus, &message), search::Outcome::kUnsupported);
  EXPECT_NE(message.find("exited with status 1 after chess-trace refused io_uring_setup (pid 2 got ENOSYS"),
            std::string::npos)
      << message;
}

TEST(RefusalJudge, ARefusalIsNoOutcomeByItself) {
  RefusalJudge judge;
  const auto ok = Failed(search::Outcome::kOk, {kIoUring});
  EXPECT_EQ(judge.Judge(ok, search::Outcome::kOk, nullptr), search::Outcome::kOk);
  const auto failed_without = Failed(search::Outcome::kSignal, {});
  EXPECT_EQ(judge.Judge(failed_without, search::Outcome::kSignal, nullptr), search::Outcome::kSignal);
}

TEST(RefusalJudge, AFailureAfterARefusalTheProgramSurvivedIsItsBug) {
  RefusalJudge judge;
  judge.Learn(Failed(search::Outcome::kOk, {kIoUring}), search::Outcome::kOk);
  const auto failed = Failed(search::Outcome::kSignal, {kIoUring});
  EXPECT_EQ(judge.Judge(failed, search::Outcome::kSignal, nullptr), search::Outcome::kSignal);
  // A refusal it never survived still makes the failure unsupported.
  const supervisor::RefusedCall userfaultfd{"userfaultfd", ENOSYS, 3, "page faults"};
  EXPECT_EQ(judge.Judge(Failed(search::Outcome::kSignal, {kIoUring, userfaultfd}), search::Outcome::kSignal, nullptr),
            search::Outcome::kUnsupported);
}

supervisor::ProgramImage Image(std::string path, supervisor::Linking linking, bool threads, uint64_t sync_ops,
                               uint64_t decisions = 0, uint64_t replaced = 0) {
  supervisor::ProgramImage image;
  image.path = std::move(path);
  image.linking = linking;
  image.multithreaded = threads;
  image.sync_ops = sync_ops;
  image.decisions = decisions;
  image.replaced = replaced;
  return image;
}

TEST(Visibility, ThreadsWithoutAnnouncedSyncOperationsAreABlindSpot) {
  VisibilityTally tally;
  tally.Add({Image("/bin/sh", supervisor::Linking::kDynamic, false, 0),
             Image("/t/static_prog", supervisor::Linking::kStatic, true, 0),
             Image("/t/rust_prog", supervisor::Linking::kDynamic, true, 0),
             Image("/t/c_prog", supervisor::Linking::kDynamic, true, 12)});
  const SearchVisibility seen = tally.Summarize(SyncPoints::kProcesses);
  ASSERT_EQ(seen.blind_spots.size(), 2u);
  EXPECT_EQ(seen.blind_spots[0].rfind("static_prog is statically linked", 0), 0u) << seen.blind_spots[0];
  EXPECT_EQ(seen.blind_spots[1].rfind("rust_prog ran several threads but made no pthread", 0), 0u) << seen.blind_spots[1];
  EXPECT_EQ(seen.visible_layers, (std::vector<std::string>{"syscalls", "sync-ops", "cross-process"}));
}

TEST(Visibility, AnExecutionThatAnnouncedMakesTheProgramSeen) {
  VisibilityTally tally;
  tally.Add({Image("/t/prog", supervisor::Linking::kDynamic, true, 0)});
  tally.Add({Image("/t/prog", supervisor::Linking::kDynamic, false, 3)});
  const SearchVisibility seen = tally.Summarize(SyncPoints::kAuto);
  EXPECT_TRUE(seen.blind_spots.empty());
  ASSERT_EQ(seen.programs.size(), 1u);
  EXPECT_TRUE(seen.programs[0].multithreaded);
  EXPECT_EQ(seen.programs[0].sync_ops, 3u);
  EXPECT_EQ(seen.visible_layers, (std::vector<std::string>{"syscalls", "sync-ops"}));
}

TEST(Visibility, SyscallPointsOnlyAreSaidToBeTheUsersChoice) {
  VisibilityTally tally;
  tally.Add({Image("/t/prog", supervisor::Linking::kDynamic, true, 0)});
  const SearchVisibility seen = tally.Summarize(SyncPoints::kSyscalls);
  ASSERT_EQ(seen.blind_spots.size(), 1u);
  EXPECT_NE(seen.blind_spots[0].find("--sync-points syscalls"), std::string::npos);
}

TEST(Visibility, ASearchSpentInWrappersNamesTheProgramToFocusOn) {
  VisibilityTally tally;
  tally.Add({Image("/usr/bin/env", supervisor::Linking::kDynamic, false, 0, 100, 1),
             Image("/usr/bin/bash", supervisor::Linking::kDynamic, false, 0, 1500),
             Image("/usr/bin/python3.11", supervisor::Linking::kDynamic, true, 900, 600)});
  const SearchVisibility seen = tally.Summarize(SyncPoints::kProcesses);
  ASSERT_EQ(seen.hints.size(), 1u);
  EXPECT_NE(seen.hints[0].find("72% of the decisions that had a choice"), std::string::npos) << seen.hints[0];
  EXPECT_NE(seen.hints[0].find("(env, bash)"), std::string::npos) << seen.hints[0];
  EXPECT_NE(seen.hints[0].find("--focus python3.11"), std::string::npos) << seen.hints[0];
  // Given a focus, or when the program itself took most choices, there is nothing to advise.
  EXPECT_TRUE(tally.Summarize(SyncPoints::kProcesses, {"python3"}).hints.empty());
  VisibilityTally busy;
  busy.Add({Image("/usr/bin/bash", supervisor::Linking::kDynamic, false, 0, 400),
            Image("/t/prog", supervisor::Linking::kDynamic, true, 10, 4000)});
  EXPECT_TRUE(busy.Summarize(SyncPoints::kProcesses).hints.empty());
}

}  // namespace
}  // namespace chess::cli
