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
  EXPECT_NE(verdict->find("line 2: want.txt has `sum 20`, the output `sum 19`"), std::string::npos) << *verdict;
}

TEST(OutputOracle, FirstDifferenceSeesShortOutputsAndTheLastNewline) {
  EXPECT_FALSE(FirstDifference("a\nb\n", "a\nb\n", "f").has_value());
  EXPECT_NE(FirstDifference("a\nb\n", "a\n", "f")->find("line 2: f has `b`, the output ends before it"), std::string::npos);
  EXPECT_NE(FirstDifference("a\n", "a\nc\n", "f")->find("line 2: the output has `c`, f ends before it"), std::string::npos);
  EXPECT_NE(FirstDifference("a\n", "a", "f")->find("f ends with a newline"), std::string::npos);
  EXPECT_NE(FirstDifference("a", "a\n", "f")->find("the output ends with a newline"), std::string::npos);
}

}  // namespace
}  // namespace chess::search
