#include "search/output_oracle.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

OutputOracle Regex(const std::string& regex) {
  OutputOracleSpec spec;
  spec.fail_on_output = regex;
  auto oracle = OutputOracle::Make(spec);
  EXPECT_TRUE(oracle.ok()) << oracle.error();
  return std::move(oracle).value();
}

TEST(OutputOracle, NoOracleAcceptsAnything) {
  auto oracle = OutputOracle::Make({});
  ASSERT_TRUE(oracle.ok());
  EXPECT_FALSE(oracle->Spec().Any());
  EXPECT_FALSE(oracle->Judge("ERROR\n", "ERROR\n").has_value());
}

TEST(OutputOracle, ARegexQuotesTheMatchingLineWithItsStreamAndNumber) {
  const OutputOracle oracle = Regex("ERROR");
  EXPECT_FALSE(oracle.Judge("all fine\nbalance 2\n", "").has_value());
  const auto verdict = oracle.Judge("start\nbalance 1\n", "warning\nERROR: lost an update\n");
  ASSERT_TRUE(verdict.has_value());
  EXPECT_NE(verdict->find("stderr line 2: `ERROR: lost an update`"), std::string::npos) << *verdict;
  EXPECT_NE(verdict->find("'ERROR'"), std::string::npos) << *verdict;
}

TEST(OutputOracle, ARegexIsSearchedInEachLineNotAcrossThem) {
  const OutputOracle anchored = Regex("^balance 1$");
  EXPECT_TRUE(anchored.Judge("x\nbalance 1\ny", "").has_value());
  EXPECT_FALSE(anchored.Judge("x\nbalance 10\n", "").has_value());
  EXPECT_FALSE(Regex("a.b").Judge("a\nb\n", "").has_value());
}

TEST(OutputOracle, ManyMatchesQuoteTheFirstAndCountTheRest) {
  const auto verdict = Regex("bad").Judge("bad 1\nbad 2\nbad 3\nbad 4\nbad 5\n", "");
  ASSERT_TRUE(verdict.has_value());
  EXPECT_NE(verdict->find("stdout line 3: `bad 3`"), std::string::npos) << *verdict;
  EXPECT_EQ(verdict->find("bad 4"), std::string::npos) << *verdict;
  EXPECT_NE(verdict->find("and 2 more lines"), std::string::npos) << *verdict;
}

TEST(OutputOracle, ABadRegexIsAnErrorNamingIt) {
  OutputOracleSpec spec;
  spec.fail_on_output = "ERROR(";
  auto oracle = OutputOracle::Make(spec);
  ASSERT_FALSE(oracle.ok());
  EXPECT_NE(oracle.error().find("--fail-on-output 'ERROR('"), std::string::npos) << oracle.error();
  spec.fail_on_output = "";
  EXPECT_FALSE(OutputOracle::Make(spec).ok());
}

TEST(OutputOracle, ExpectedStdoutQuotesTheFirstDifferingLine) {
  OutputOracleSpec spec;
  spec.expected_stdout = "sum 10\nsum 20\n";
  spec.expected_stdout_name = "want.txt";
  auto oracle = OutputOracle::Make(spec);
  ASSERT_TRUE(oracle.ok());
  EXPECT_FALSE(oracle->Judge("sum 10\nsum 20\n", "noise on stderr\n").has_value());
  const auto verdict = oracle->Judge("sum 10\nsum 19\n", "");
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(*verdict, "stdout differs from want.txt at line 2: `sum 20` expected, `sum 19` written");
}

TEST(OutputOracle, FirstDifferenceSeesShortOutputsAndTheLastNewline) {
  EXPECT_FALSE(FirstDifference("a\nb\n", "a\nb\n").has_value());
  EXPECT_EQ(*FirstDifference("a\nb\n", "a\n"), "at line 2: `b` expected, the output ends before it");
  EXPECT_EQ(*FirstDifference("a\n", "a\nc\n"), "at line 2: `c` written, past the end of what was expected");
  EXPECT_EQ(*FirstDifference("a\n", "a"), "at the end: a final newline expected, none written");
  EXPECT_EQ(*FirstDifference("a", "a\n"), "at the end: a final newline written, none expected");
}

// --same-output's files: each must hold the reference's bytes, or be missing where it was.
TEST(OutputOracle, ExpectedFilesMustBeAsTheReferenceLeftThem) {
  OutputOracleSpec spec;
  spec.expected_files = {{"out/sum.txt", "sum 30\n"}, {"/tmp/never", std::nullopt}};
  auto oracle = OutputOracle::Make(spec);
  ASSERT_TRUE(oracle.ok());
  EXPECT_FALSE(oracle->Judge("", "", {"sum 30\n", std::nullopt}).has_value());
  EXPECT_EQ(*oracle->Judge("", "", {"sum 29\n", std::nullopt}),
            "out/sum.txt differs from the reference execution's at line 1: `sum 30` expected, `sum 29` written");
  EXPECT_EQ(*oracle->Judge("", "", {std::nullopt, std::nullopt}),
            "out/sum.txt is missing; the reference execution wrote it");
  EXPECT_EQ(*oracle->Judge("", "", {"sum 30\n", ""}), "/tmp/never was written; the reference execution left none");
}

// --check: a non-zero status or a timeout is a failure, quoting what the command printed.
TEST(OutputOracle, CheckQuotesItsStatusAndFirstLines) {
  OutputOracleSpec spec;
  spec.check_command = "./verify";
  auto oracle = OutputOracle::Make(spec);
  ASSERT_TRUE(oracle.ok());
  EXPECT_FALSE(oracle->JudgeCheck(0, false, "all good\n").has_value());
  EXPECT_EQ(*oracle->JudgeCheck(3, false, "row 7 lost\nrow 9 lost\n"),
            "--check './verify' exited 3: `row 7 lost`; `row 9 lost`");
  EXPECT_EQ(*oracle->JudgeCheck(137, true, ""), "--check './verify' ran out of time");
  EXPECT_FALSE(OutputOracle::Make({})->JudgeCheck(1, false, "").has_value()) << "no --check, nothing to judge";
}

}  // namespace
}  // namespace chess::search
