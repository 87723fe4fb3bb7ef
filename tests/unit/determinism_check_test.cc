// DeterminismCheck on hand-made event streams: the first execution is kept, later ones are
// compared; a differing result is remembered, a differing action ends the comparison, and the
// cause named is the last differing result of the same thread.
#include "search/determinism_check.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

SyscallEvent Entry(uint32_t thread, uint64_t index, int64_t syscall, uint64_t digest = 0) {
  SyscallEvent event;
  event.thread = ThreadId{thread};
  event.index = index;
  event.syscall = syscall;
  event.digest = digest;
  return event;
}

SyscallEvent Exit(uint32_t thread, uint64_t index, int64_t syscall, int64_t result, uint64_t digest = 0) {
  SyscallEvent event = Entry(thread, index, syscall, digest);
  event.exit = true;
  event.result = result;
  return event;
}

// Feeds `events` as one execution; returns how many were taken before the check said stop.
size_t Feed(DeterminismCheck& check, const std::vector<SyscallEvent>& events) {
  check.BeginExecution();
  const EventContext context{[] { return std::string("    frame\n"); }, [](uint64_t) { return std::string("site"); }, {}};
  size_t taken = 0;
  for (const SyscallEvent& event : events) {
    ++taken;
    if (!check.Observe(event, context)) break;
  }
  return taken;
}

const std::vector<SyscallEvent> kReference = {Entry(0, 1, 0), Exit(0, 1, 0, 10, 111), Entry(1, 1, 1, 5),
                                              Exit(1, 1, 1, 0), Entry(0, 2, 1, 7), Exit(0, 2, 1, 3)};

TEST(DeterminismCheck, IdenticalExecutionsShowNoDifference) {
  DeterminismCheck check;
  Feed(check, kReference);
  EXPECT_EQ(check.ReferenceEvents(), kReference.size());
  EXPECT_EQ(Feed(check, kReference), kReference.size());
  EXPECT_FALSE(check.BehaviourDifference());
  EXPECT_FALSE(check.FirstValueDifference());
  EXPECT_FALSE(check.EndedEarly());
  EXPECT_EQ(check.ValueDifferences(), 0u);
}

TEST(DeterminismCheck, ADifferentResultAloneIsRememberedNotFatal) {
  DeterminismCheck check;
  Feed(check, kReference);
  std::vector<SyscallEvent> later = kReference;
  later[1].digest = 222;  // thread 0 read other bytes
  EXPECT_EQ(Feed(check, later), later.size());
  EXPECT_FALSE(check.BehaviourDifference());
  ASSERT_TRUE(check.FirstValueDifference());
  EXPECT_EQ(check.FirstValueDifference()->position, 1u);
  EXPECT_EQ(check.FirstValueDifference()->expected->digest, 111u);
  EXPECT_EQ(check.ValueDifferences(), 1u);
}

TEST(DeterminismCheck, ADifferentActionEndsItAndNamesTheSameThreadsLastDifferentResult) {
  DeterminismCheck check;
  Feed(check, kReference);
  std::vector<SyscallEvent> later = kReference;
  later[1].result = 11;  // thread 0's first result differs…
  later[3].result = 4;   // …and thread 1's, later
  later[4].digest = 8;   // thread 0 then writes something else
  EXPECT_EQ(Feed(check, later), 5u);
  ASSERT_TRUE(check.BehaviourDifference());
  EXPECT_EQ(check.BehaviourDifference()->position, 4u);
  EXPECT_EQ(check.BehaviourDifference()->backtrace, "    frame\n");
  EXPECT_EQ(check.BehaviourDifference()->expected_site, "site");
  ASSERT_TRUE(check.LikelyCause());
  EXPECT_EQ(check.LikelyCause()->found.thread, ThreadId{0});  // not thread 1's, though later
  EXPECT_EQ(check.LikelyCause()->position, 1u);
  EXPECT_EQ(check.ValueDifferences(), 2u);
}

TEST(DeterminismCheck, AnotherSyscallOrThreadOrMoreEventsIsBehaviour) {
  for (int variant = 0; variant < 3; ++variant) {
    DeterminismCheck check;
    Feed(check, kReference);
    std::vector<SyscallEvent> later = kReference;
    if (variant == 0) later[2].syscall = 9;
    if (variant == 1) later[2].thread = ThreadId{0};
    if (variant == 2) later.push_back(Entry(0, 3, 60));
    Feed(check, later);
    EXPECT_TRUE(check.BehaviourDifference()) << variant;
  }
}

TEST(DeterminismCheck, IncidentalResultsAreNoCause) {
  DeterminismCheck check;
  Feed(check, kReference);
  std::vector<SyscallEvent> later = kReference;
  later[1].digest = 999;
  later[1].incidental = true;
  Feed(check, later);
  EXPECT_FALSE(check.FirstValueDifference());
}

TEST(DeterminismCheck, AnExecutionThatStopsShortIsReported) {
  DeterminismCheck check;
  Feed(check, kReference);
  Feed(check, {kReference.begin(), kReference.begin() + 3});
  auto early = check.EndedEarly();
  ASSERT_TRUE(early);
  EXPECT_EQ(early->position, 3u);
  EXPECT_EQ(early->expected->thread, ThreadId{1});
}

TEST(DeterminismCheck, OnlyTheKeptPartOfALongReferenceIsCompared) {
  DeterminismCheck check(4);
  Feed(check, kReference);
  EXPECT_TRUE(check.Truncated());
  std::vector<SyscallEvent> later = kReference;
  later[5].result = 99;  // past the kept four
  Feed(check, later);
  EXPECT_FALSE(check.BehaviourDifference());
  EXPECT_FALSE(check.FirstValueDifference());
}

}  // namespace
}  // namespace chess::search
