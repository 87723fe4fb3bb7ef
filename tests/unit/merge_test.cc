// `chess-trace merge` over shard reports built here: the verdict (exit 0, 1, 2), the bugs listed
// once, missing and unfinished shards named, and reports of different searches refused.
#include "cli/merge_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/exit_codes.h"

namespace chess::cli {
namespace {

struct ShardSpec {
  int index = 1;
  int count = 2;
  std::string stopped_by = "bound-explored";
  int executions = 15;
  std::string schedules_digest = "0000000000000010";
  std::string strategy = "pb";
  std::string bound_key = "preemption_bound";
  int bound = 2;
  bool complete = true;
  std::string trunk = "00000000000000aa";
  std::string bound_value = "2";
  std::string bugs;  // JSON array items
};

ShardReportFile Report(const ShardSpec& spec) {
  const std::string json =
      R"({"schema": 2, "command": "explore", "outcome": "none", "executions": )" + std::to_string(spec.executions) +
      R"(, "stopped_by": ")" + spec.stopped_by + R"(", "message": "m", "coverage": {"strategy": ")" + spec.strategy +
      R"(", ")" + spec.bound_key + R"(": )" + std::to_string(spec.bound) + R"(, "bound_completed": )" +
      (spec.complete ? std::to_string(spec.bound) : "null") + R"(, "schedules": )" + std::to_string(spec.executions) +
      R"(, "complete": )" + (spec.complete ? "true" : "false") + R"(, "sampled": 0, "exhausted": false},
      "search": {"digest": "d1", "identity": {"strategy": ")" + spec.strategy + R"(", "preemption_bound": ")" +
      spec.bound_value + R"(", "shards": ")" + std::to_string(spec.count) + R"("},
      "shard": {"index": )" + std::to_string(spec.index) + R"(, "count": )" + std::to_string(spec.count) +
      R"(, "split_depth": 1}, "trunk_digest": ")" + spec.trunk + R"(", "pct_k": 0, "replayed_prefixes": )" +
      (spec.index == 1 ? "0" : "1") + R"(, "schedules_digest": ")" + spec.schedules_digest + R"("},
      "warnings": [], "bugs": [)" + spec.bugs + "]}";
  Result<JsonValue> parsed = JsonValue::Parse(json);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error()) << json;
  return {"shard-" + std::to_string(spec.index) + ".json", parsed ? *parsed : JsonValue{}};
}

// A spec with `edit` applied (designated initializers would warn of the members left out).
template <typename Edit>
ShardSpec With(int index, Edit edit) {
  ShardSpec spec;
  spec.index = index;
  edit(spec);
  return spec;
}
ShardSpec Shard(int index) {
  ShardSpec spec;
  spec.index = index;
  return spec;
}

std::string Bug(const std::string& signature, int preemptions, int execution) {
  return R"({"outcome": "signal", "signature": ")" + signature + R"(", "execution": )" + std::to_string(execution) +
         R"(, "preemptions": )" + std::to_string(preemptions) + R"(, "message": "SIGABRT", "trace": "t.trace"})";
}

TEST(Merge, EveryShardCompleteIsTheWholeSearchCovered) {
  Result<MergedSearch> merged = MergeShardReports({Report(Shard(1)), Report(With(2, [](ShardSpec& s) { s.executions = 16; }))});
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(MergeExitCode(*merged), 0);
  EXPECT_EQ(merged->executions, 31u);
  EXPECT_EQ(merged->schedules_digest, 0x20u);
  EXPECT_EQ(merged->replayed_prefixes, 1u);
  EXPECT_NE(MergedCoverageSentence(*merged).find("all 31 schedules with ≤ 2 preemptions explored by 2 shards"),
            std::string::npos)
      << MergedCoverageSentence(*merged);
  EXPECT_NE(MergedJsonReport(*merged).find(R"("complete":true)"), std::string::npos) << MergedJsonReport(*merged);
}

TEST(Merge, AMissingOrUnfinishedShardIsIncomplete) {
  Result<MergedSearch> missing = MergeShardReports({Report(With(1, [](ShardSpec& s) { s.count = 3; })), Report(With(3, [](ShardSpec& s) { s.count = 3; }))});
  ASSERT_TRUE(missing) << missing.error();
  EXPECT_EQ(MergeExitCode(*missing), kExitIncomplete);
  EXPECT_EQ(missing->missing, std::vector<uint32_t>{2});
  EXPECT_NE(MergedTextReport(*missing).find("shard 2/3: missing"), std::string::npos) << MergedTextReport(*missing);

  Result<MergedSearch> limited = MergeShardReports(
      {Report(Shard(1)), Report(With(2, [](ShardSpec& s) { s.stopped_by = "max-executions"; s.complete = false; }))});
  ASSERT_TRUE(limited);
  EXPECT_EQ(MergeExitCode(*limited), kExitIncomplete);
  ASSERT_EQ(limited->incomplete.size(), 1u);
  EXPECT_NE(limited->incomplete[0].second.find("--max-executions"), std::string::npos);

  // The shards dealt different work below their trunks: their parts need not add up.
  Result<MergedSearch> diverged = MergeShardReports({Report(Shard(1)), Report(With(2, [](ShardSpec& s) { s.trunk = "bb"; }))});
  ASSERT_TRUE(diverged);
  EXPECT_EQ(MergeExitCode(*diverged), kExitIncomplete);
  ASSERT_EQ(diverged->incomplete.size(), 1u);
  EXPECT_NE(diverged->incomplete[0].second.find("trunk"), std::string::npos);
}

TEST(Merge, APortfolioShardAtItsLimitThatCoveredItsPartIsComplete) {
  Result<MergedSearch> merged =
      MergeShardReports({Report(With(1, [](ShardSpec& s) { s.stopped_by = "max-executions"; s.strategy = "portfolio"; })),
                         Report(With(2, [](ShardSpec& s) { s.stopped_by = "max-executions"; s.strategy = "portfolio"; }))});
  ASSERT_TRUE(merged);
  EXPECT_EQ(MergeExitCode(*merged), 0);
}

TEST(Merge, EachBugIsListedOnceWithTheFewestPreemptionsFirst) {
  Result<MergedSearch> merged = MergeShardReports(
      {Report(With(1, [](ShardSpec& s) { s.stopped_by = "bug"; s.bugs = Bug("aa", 2, 9); })),
       Report(With(2, [](ShardSpec& s) { s.stopped_by = "bug"; s.bugs = Bug("aa", 1, 4) + "," + Bug("bb", 1, 7); }))});
  ASSERT_TRUE(merged);
  EXPECT_EQ(MergeExitCode(*merged), kExitBug);
  ASSERT_EQ(merged->bugs.size(), 2u);
  EXPECT_EQ(merged->bugs[0].signature, "aa");
  EXPECT_EQ(merged->bugs[0].shard, 2u);
  EXPECT_EQ(merged->bugs[0].preemptions, 1);
  EXPECT_EQ(merged->bugs[1].signature, "bb");
  // The trace is not where the report says: said, not hidden.
  EXPECT_FALSE(merged->bugs[0].trace_problem.empty());
  EXPECT_NE(MergedTextReport(*merged).find("found by shard 2/2 in its execution 4 with 1 preemption"),
            std::string::npos)
      << MergedTextReport(*merged);
}

TEST(Merge, ReportsOfDifferentSearchesAreRefused) {
  ShardReportFile b = Report(Shard(2));
  // Another digest, and the field that makes it so named.
  std::vector<ShardReportFile> files{Report(Shard(1)), b};
  {
    const std::string text = R"({"schema": 2, "command": "explore", "search": {"digest": "d2", "identity":
        {"strategy": "pb", "preemption_bound": "1", "shards": "2"}, "shard": {"index": 2, "count": 2}}})";
    Result<JsonValue> parsed = JsonValue::Parse(text);
    ASSERT_TRUE(parsed);
    files[1].report = *parsed;
  }
  Result<MergedSearch> refused = MergeShardReports(files);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("not parts of one search"), std::string::npos) << refused.error();
  EXPECT_NE(refused.error().find("preemption_bound (`2`, `1`)"), std::string::npos) << refused.error();

  Result<MergedSearch> counts = MergeShardReports({Report(With(1, [](ShardSpec& s) { s.count = 2; })), Report(With(2, [](ShardSpec& s) { s.count = 3; }))});
  ASSERT_FALSE(counts);
  EXPECT_NE(counts.error().find("a shard of 3"), std::string::npos) << counts.error();

  Result<MergedSearch> twice = MergeShardReports({Report(Shard(1)), Report(With(1, [](ShardSpec& s) { s.executions = 3; }))});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("twice, with different results"), std::string::npos);

  Result<MergedSearch> same = MergeShardReports({Report(Shard(1)), Report(Shard(1)), Report(Shard(2))});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->notes.size(), 1u);
  EXPECT_EQ(MergeExitCode(*same), 0);

  Result<JsonValue> run_report = JsonValue::Parse(R"({"command": "run"})");
  ASSERT_TRUE(run_report);
  Result<MergedSearch> run = MergeShardReports({{"run.json", *run_report}});
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().find("not the report of `chess-trace explore --report`"), std::string::npos);
  EXPECT_FALSE(MergeShardReports({}));
}

TEST(Merge, DelayBoundingIsToldInDelays) {
  Result<MergedSearch> merged = MergeShardReports({Report(With(1, [](ShardSpec& s) { s.strategy = "db"; s.bound_key = "delay_bound"; })),
                                                   Report(With(2, [](ShardSpec& s) { s.strategy = "db"; s.bound_key = "delay_bound"; }))});
  ASSERT_TRUE(merged);
  EXPECT_NE(MergedCoverageSentence(*merged).find("≤ 2 delays"), std::string::npos) << MergedCoverageSentence(*merged);
}

}  // namespace
}  // namespace chess::cli
