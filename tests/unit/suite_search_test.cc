// `chess-trace test`: what a test's search report makes of the test (passed, a concurrency bug, a
// plain failure, skipped, an error), the explore command it runs, and names safe as directories.
#include "cli/suite/test_search.h"

#include <gtest/gtest.h>

namespace chess::cli::suite {
namespace {

const TestCase kCase{"Bank.Transfer", {"/t/bank", "--gtest_filter=Bank.Transfer"}, false};

JsonValue Report(const std::string& text) {
  auto parsed = JsonValue::Parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  return parsed.ok() ? *parsed : JsonValue();
}

TEST(SuiteSearch, ABoundCoveredIsAPass) {
  const JsonValue report = Report(R"({"outcome":"none","executions":46,"message":"no bug: all 46 schedules",
      "coverage":{"complete":true},"stopped_by":"bound-explored"})");
  const TestResult result = ResultFromReport(
      kCase, 0, &report, "chess-trace: data race: thread 0 wrote…\nchess-trace: no bug: all 46 schedules\n", true, {});
  EXPECT_EQ(result.verdict, TestVerdict::kPassed);
  EXPECT_EQ(result.executions, 46u);
  EXPECT_EQ(result.coverage, "no bug: all 46 schedules") << "the coverage sentence, not the race before it";
}

TEST(SuiteSearch, ABudgetSpentBeforeTheBoundIsSkippedSayingSo) {
  const JsonValue report = Report(R"({"outcome":"none","executions":2000,"coverage":{"complete":false},
      "stopped_by":"max-executions"})");
  const TestResult result =
      ResultFromReport(kCase, 0, &report, "chess-trace: no bug found within 2000 executions\n", true, {});
  EXPECT_EQ(result.verdict, TestVerdict::kSkipped);
  EXPECT_NE(result.skip_reason.find("its budget ran out before its bound was covered: 2000 executions "
                                    "(--per-test-executions 2000)"),
            std::string::npos)
      << result.skip_reason;
  // A sampled search (pct, random) stops at its budget by design: that is a pass.
  EXPECT_EQ(ResultFromReport(kCase, 0, &report, "", false, {}).verdict, TestVerdict::kPassed);
  const JsonValue timed = Report(R"({"outcome":"none","executions":9,"coverage":{"complete":false},
      "stopped_by":"time-limit"})");
  EXPECT_NE(ResultFromReport(kCase, 0, &timed, "", true, {}).skip_reason.find("in --per-test-time 60 s"),
            std::string::npos);
}

TEST(SuiteSearch, AFailureOfTheFirstScheduleIsPlainALaterOneAConcurrencyBug) {
  const std::string text =
      "chess-trace: BUG: exit-status in execution 1 with 0 preemptions\n"
      "  its output (the last lines):\n    stdout| [  FAILED  ] Bank.Transfer\n    stderr| boom\n"
      "  searched: 1 schedule explored\n";
  const JsonValue plain = Report(R"({"outcome":"exit-status","executions":1,"execution":1,"preemptions":0,
      "message":"exit status 1","trace":"/o/t.trace","replay_command":"chess-trace replay /o/t.trace"})");
  TestResult result = ResultFromReport(kCase, 1, &plain, text, true, {});
  EXPECT_EQ(result.verdict, TestVerdict::kPlainFailure);
  EXPECT_EQ(result.output, "stdout| [  FAILED  ] Bank.Transfer\nstderr| boom\n");
  EXPECT_EQ(result.coverage, "1 schedule explored");
  EXPECT_EQ(result.replay_command, "chess-trace replay /o/t.trace");
  const JsonValue racy = Report(R"({"outcome":"signal","executions":8,"execution":8,"preemptions":1,
      "message":"SIGABRT","trace":"/o/t.trace","replay_command":"chess-trace replay /o/t.trace"})");
  result = ResultFromReport(kCase, 1, &racy, text, true, {});
  EXPECT_EQ(result.verdict, TestVerdict::kConcurrencyBug);
  EXPECT_EQ(result.preemptions, 1);
  EXPECT_EQ(result.trace_path, "/o/t.trace");
  // Found in a later execution without a preemption (another order at a blocking point): a
  // concurrency bug all the same.
  const JsonValue later = Report(R"({"outcome":"deadlock","executions":4,"execution":4,"preemptions":0})");
  EXPECT_EQ(ResultFromReport(kCase, 1, &later, "", true, {}).verdict, TestVerdict::kConcurrencyBug);
}

TEST(SuiteSearch, ASearchThatCouldNotRunIsAnError) {
  EXPECT_EQ(ResultFromReport(kCase, 125, nullptr, "chess-trace: cannot execute /t/bank\n", true, {}).message,
            "its search ended with exit status 125 and no report: cannot execute /t/bank");
  const JsonValue error = Report(R"({"outcome":"error","executions":0,"message":"the filter could not be loaded"})");
  const TestResult result = ResultFromReport(kCase, 125, &error, "", true, {});
  EXPECT_EQ(result.verdict, TestVerdict::kError);
  EXPECT_EQ(result.message, "the filter could not be loaded");
}

TEST(SuiteSearch, TheExploreCommandCarriesTheBudgetAndTheUsersOptions) {
  SearchSettings settings;
  settings.chess_trace = "/bin/chess-trace";
  settings.explore_options = {"--preemption-bound", "1"};
  settings.budget.executions = 300;
  const std::vector<std::string> expected = {"/bin/chess-trace", "explore", "--quiet", "--out", "o/Bank.Transfer",
                                             "--report", "o/Bank.Transfer/report.json", "--max-executions", "300",
                                             "--time-limit", "30", "--preemption-bound", "1", "--", "/t/bank",
                                             "--gtest_filter=Bank.Transfer"};
  EXPECT_EQ(ExploreCommandLine(settings, kCase, "o/Bank.Transfer", 29.2), expected);
}

TEST(SuiteSearch, SafeNamesAreOnePathComponentAndUnique) {
  std::vector<std::string> taken;
  EXPECT_EQ(SafeName("Bank.Transfer", taken), "Bank.Transfer");
  EXPECT_EQ(SafeName("Inst/Param.Case/0", taken), "Inst_Param.Case_0");
  EXPECT_EQ(SafeName("tests/test_pool.py::test_race[2-3]", taken), "tests_test_pool.py__test_race_2-3_");
  EXPECT_EQ(SafeName("..", taken), "_.");
  EXPECT_EQ(SafeName("", taken), "_");
  EXPECT_EQ(SafeName("Inst/Param.Case/0", taken), "Inst_Param.Case_0-2");
  EXPECT_EQ(SafeName("Inst_Param.Case_0", taken), "Inst_Param.Case_0-3");
  EXPECT_EQ(SafeName(std::string(300, 'x'), taken).size(), 120u);
}

}  // namespace
}  // namespace chess::cli::suite
