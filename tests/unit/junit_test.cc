// The JUnit XML of a suite's results (cli/suite/junit.h): the exact document for each verdict, escaping,
// characters XML cannot hold, the attachment line, the classname rule and the counts. That the document
// passes the schema consumers read is suite.junit_validates (tests/suite/).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/suite/junit.h"
#include "cli/suite/test_result.h"

namespace chess::cli::suite {
namespace {

const JunitSuite kSuite{"./build/bank_test", "2026-11-27T05:00:00Z", "ci-runner", 12.3456};

TestResult Passed(std::string name) {
  TestResult result;
  result.name = std::move(name);
  return result;
}

TestResult WithVerdict(std::string name, TestVerdict verdict) {
  TestResult result = Passed(std::move(name));
  result.verdict = verdict;
  return result;
}

// The text between `attribute="` and the next quote in the first element `element` opens.
std::string AttributeOf(const std::string& xml, const std::string& element, const std::string& attribute) {
  const size_t start = xml.find("<" + element + " ");
  if (start == std::string::npos) return "<no " + element + ">";
  const size_t end = xml.find('>', start);
  const std::string tag = xml.substr(start, end - start);
  const std::string key = " " + attribute + "=\"";
  const size_t at = tag.find(key);
  if (at == std::string::npos) return "<no " + attribute + ">";
  const size_t value = at + key.size();
  return tag.substr(value, tag.find('"', value) - value);
}

TEST(JunitXml, WritesTheDocumentForEachVerdict) {
  TestResult deposit = Passed("Bank.Deposit");
  deposit.seconds = 1.5;
  deposit.coverage = "Explored all 10 schedules with at most 2 preemptions.";

  TestResult transfer = WithVerdict("Bank.Transfer", TestVerdict::kConcurrencyBug);
  transfer.seconds = 2.25;
  transfer.outcome = "signal";
  transfer.preemptions = 1;
  transfer.message = "bank_test.cc:12: balance == 200";
  transfer.report = "signal (SIGABRT) at execution 7 with 1 preemption\n  thread 1: ...\n";
  transfer.replay_command = "chess-trace replay /out/Bank.Transfer/bug-1.trace";
  transfer.trace_path = "/out/Bank.Transfer/bug-1.trace";
  transfer.coverage = "Found at execution 7 of 300.";

  TestResult broken = WithVerdict("Bank.Broken", TestVerdict::kPlainFailure);
  broken.message = "exit-status 1";
  broken.output = "Expected: 1\nActual: 2\n";

  TestResult slow = WithVerdict("Bank.DISABLED_Slow", TestVerdict::kSkipped);
  slow.skip_reason = "disabled";

  TestResult setup = WithVerdict("Bank.Setup", TestVerdict::kError);
  setup.seconds = 0.0004;
  setup.message = "cannot execute ./bank_test";
  setup.report = "error: cannot execute ./bank_test: Permission denied\n";

  EXPECT_EQ(JunitXml(kSuite, {deposit, transfer, broken, slow, setup}),
            R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="./build/bank_test" tests="5" failures="2" errors="1" skipped="1" time="12.346">
  <testsuite name="./build/bank_test" tests="5" failures="2" errors="1" skipped="1" time="12.346" timestamp="2026-11-27T05:00:00Z" hostname="ci-runner">
    <testcase name="Bank.Deposit" classname="Bank" time="1.500">
      <system-out>Explored all 10 schedules with at most 2 preemptions.</system-out>
    </testcase>
    <testcase name="Bank.Transfer" classname="Bank" time="2.250">
      <failure type="concurrency" message="signal with 1 preemption: bank_test.cc:12: balance == 200">signal (SIGABRT) at execution 7 with 1 preemption
  thread 1: ...
replay: chess-trace replay /out/Bank.Transfer/bug-1.trace</failure>
      <system-out>Found at execution 7 of 300.
[[ATTACHMENT|/out/Bank.Transfer/bug-1.trace]]</system-out>
    </testcase>
    <testcase name="Bank.Broken" classname="Bank" time="0.000">
      <failure type="plain" message="fails without any preemption: exit-status 1">Expected: 1
Actual: 2</failure>
    </testcase>
    <testcase name="Bank.DISABLED_Slow" classname="Bank" time="0.000">
      <skipped message="disabled"/>
    </testcase>
    <testcase name="Bank.Setup" classname="Bank" time="0.000">
      <error type="chess-trace" message="cannot execute ./bank_test">error: cannot execute ./bank_test: Permission denied</error>
    </testcase>
  </testsuite>
</testsuites>
)");
}

TEST(JunitXml, APassedTestWithNothingToSayIsAnEmptyElement) {
  const std::string xml = JunitXml(kSuite, {Passed("Bank.Deposit")});
  EXPECT_NE(xml.find("    <testcase name=\"Bank.Deposit\" classname=\"Bank\" time=\"0.000\"/>\n"), std::string::npos)
      << xml;
}

TEST(JunitXml, NoTestsIsAnEmptySuite) {
  const JunitSuite suite{"pytest", "", "", 0};
  EXPECT_EQ(JunitXml(suite, {}), R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pytest" tests="0" failures="0" errors="0" skipped="0" time="0.000">
  <testsuite name="pytest" tests="0" failures="0" errors="0" skipped="0" time="0.000"/>
</testsuites>
)");  // an unknown timestamp and hostname are left out
}

TEST(JunitXml, CountsEachVerdictInTheSuiteAndTheDocument) {
  const std::vector<TestResult> results = {
      Passed("a"),
      Passed("b"),
      WithVerdict("c", TestVerdict::kConcurrencyBug),
      WithVerdict("d", TestVerdict::kConcurrencyBug),
      WithVerdict("e", TestVerdict::kPlainFailure),
      WithVerdict("f", TestVerdict::kSkipped),
      WithVerdict("g", TestVerdict::kSkipped),
      WithVerdict("h", TestVerdict::kSkipped),
      WithVerdict("i", TestVerdict::kError),
  };
  const std::string xml = JunitXml(kSuite, results);
  for (const char* element : {"testsuites", "testsuite"}) {
    EXPECT_EQ(AttributeOf(xml, element, "tests"), "9") << element;
    EXPECT_EQ(AttributeOf(xml, element, "failures"), "3") << element;  // concurrency bugs and plain failures
    EXPECT_EQ(AttributeOf(xml, element, "errors"), "1") << element;
    EXPECT_EQ(AttributeOf(xml, element, "skipped"), "3") << element;
  }
}

TEST(JunitXml, EscapesEverySpecialCharacter) {
  const std::string nasty = "a<b>&c\"d'e]]>f";
  TestResult result = WithVerdict(nasty, TestVerdict::kConcurrencyBug);
  result.outcome = "deadlock";
  result.message = nasty;
  result.report = nasty;
  const std::string xml = JunitXml({nasty, "", "", 0}, {result});
  const std::string attribute = "a&lt;b&gt;&amp;c&quot;d&apos;e]]&gt;f";
  EXPECT_NE(xml.find("<testsuites name=\"" + attribute + "\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"" + attribute + "\" classname=\"" + attribute + "\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("message=\"deadlock: " + attribute + "\">"), std::string::npos) << xml;
  // In text, quotes need no escape; '>' is always escaped so no "]]>" can appear.
  EXPECT_NE(xml.find(">a&lt;b&gt;&amp;c\"d'e]]&gt;f</failure>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("]]>"), std::string::npos) << xml;
}

TEST(JunitXml, KeepsWhitespaceAParserWouldNormalize) {
  TestResult result = WithVerdict("Bank.Transfer", TestVerdict::kPlainFailure);
  result.message = "tab\there\nnewline\rreturn";
  result.output = "line 1\r\nline 2\tend";
  const std::string xml = JunitXml(kSuite, {result});
  EXPECT_NE(xml.find("message=\"fails without any preemption: tab&#9;here&#10;newline&#13;return\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find(">line 1&#13;\nline 2\tend</failure>"), std::string::npos) << xml;
}

TEST(JunitXml, ReplacesWhatXmlCannotHold) {
  TestResult result = WithVerdict("Bank.Transfer", TestVerdict::kPlainFailure);
  result.output = std::string("nul[") + '\0' + "] esc[\x1b[31m] bell[\x07] del[\x7f]";
  result.output += " noncharacters[\xEF\xBF\xBE\xEF\xBF\xBF] lone continuation[\x80] surrogate[\xED\xA0\x80]";
  result.output += " kept: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBD \xC2\x85";
  result.output += " overlong[\xC0\xAF] past U+10FFFF[\xF4\x90\x80\x80] truncated[\xE2\x82] at the end \xF0\x9F\x98";
  const std::string xml = JunitXml(kSuite, {result});
  // C0 controls become their control pictures (U+2400 + c); DEL and C1 controls are allowed in XML 1.0.
  EXPECT_NE(xml.find("nul[\xE2\x90\x80] esc[\xE2\x90\x9B[31m] bell[\xE2\x90\x87] del[\x7f]"), std::string::npos)
      << xml;
  // Broken UTF-8 becomes U+FFFD, one for each maximal ill-formed subsequence.
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_NE(xml.find("noncharacters[" + fffd + fffd + "] lone continuation[" + fffd + "] surrogate[" + fffd + fffd +
                     fffd + "]"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("overlong[" + fffd + fffd + "] past U+10FFFF[" + fffd + fffd + fffd + fffd + "] truncated[" +
                     fffd + "] at the end " + fffd + "</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("kept: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBD \xC2\x85"), std::string::npos) << xml;
}

TEST(JunitXml, ReplacesWhatXmlCannotHoldInAttributesToo) {
  const std::string xml = JunitXml(kSuite, {Passed(std::string("a\x01") + "b\xFF")});
  EXPECT_NE(xml.find("name=\"a\xE2\x90\x81" "b\xEF\xBF\xBD\""), std::string::npos) << xml;
}

TEST(JunitXml, AttachesTheTraceOfAFailureOnly) {
  TestResult bug = WithVerdict("Bank.Transfer", TestVerdict::kConcurrencyBug);
  bug.trace_path = "/out/Bank.Transfer/bug-1.trace";
  EXPECT_NE(JunitXml(kSuite, {bug}).find("<system-out>[[ATTACHMENT|/out/Bank.Transfer/bug-1.trace]]</system-out>"),
            std::string::npos);

  TestResult plain = WithVerdict("Bank.Broken", TestVerdict::kPlainFailure);
  plain.trace_path = "/out/Bank.Broken/bug-1.trace";
  plain.coverage = "Failed in its first execution.";
  EXPECT_NE(JunitXml(kSuite, {plain})
                .find("<system-out>Failed in its first execution.\n[[ATTACHMENT|/out/Bank.Broken/bug-1.trace]]"
                      "</system-out>"),
            std::string::npos);

  TestResult without_trace = WithVerdict("Bank.Transfer", TestVerdict::kConcurrencyBug);
  EXPECT_EQ(JunitXml(kSuite, {without_trace}).find("ATTACHMENT"), std::string::npos);
  for (const TestVerdict verdict : {TestVerdict::kPassed, TestVerdict::kSkipped, TestVerdict::kError}) {
    TestResult other = WithVerdict("Bank.Deposit", verdict);
    other.trace_path = "/out/Bank.Deposit/bug-1.trace";
    EXPECT_EQ(JunitXml(kSuite, {other}).find("ATTACHMENT"), std::string::npos) << VerdictName(verdict);
  }
}

TEST(JunitXml, AttachesARelativeTraceByItsAbsolutePath) {
  TestResult bug = WithVerdict("Bank.Transfer", TestVerdict::kConcurrencyBug);
  bug.trace_path = "chess-trace-out/Bank.Transfer/bug-1.trace";
  const std::string absolute = (std::filesystem::current_path() / bug.trace_path).string();
  EXPECT_NE(JunitXml(kSuite, {bug}).find("[[ATTACHMENT|" + absolute + "]]"), std::string::npos);
}

TEST(JunitXml, NamesTheClassBeforeTheLastDotOfASuiteDotNameOnly) {
  const auto class_of = [](const std::string& name) {
    return AttributeOf(JunitXml(kSuite, {Passed(name)}), "testcase", "classname");
  };
  EXPECT_EQ(class_of("Bank.Transfer"), "Bank");
  EXPECT_EQ(class_of("Accounts/Bank.Transfer/0"), "Accounts/Bank");  // GoogleTest, parametrized
  EXPECT_EQ(class_of("bank.transfer.keeps_total"), "bank.transfer");
  // Everything else is in the suite's class.
  EXPECT_EQ(class_of("tests/test_bank.py::test_transfer"), "./build/bank_test");  // pytest
  EXPECT_EQ(class_of("bank::tests::transfer"), "./build/bank_test");              // Rust
  EXPECT_EQ(class_of("TestTransfer"), "./build/bank_test");                       // Go
  EXPECT_EQ(class_of("Transfer keeps the total."), "./build/bank_test");          // Catch2, doctest
  EXPECT_EQ(class_of("./run_transfer.sh"), "./build/bank_test");                  // --tests FILE
  EXPECT_EQ(class_of(".hidden"), "./build/bank_test");
  EXPECT_EQ(class_of("Bank."), "./build/bank_test");
}

TEST(JunitXml, NamesWhatCameWithoutAName) {
  const std::string xml = JunitXml({"", "", "", 0}, {Passed("")});
  EXPECT_EQ(AttributeOf(xml, "testsuites", "name"), "chess-trace");
  EXPECT_EQ(AttributeOf(xml, "testsuite", "name"), "chess-trace");
  EXPECT_EQ(AttributeOf(xml, "testcase", "name"), "(unnamed)");
  EXPECT_EQ(AttributeOf(xml, "testcase", "classname"), "chess-trace");
}

TEST(JunitXml, SaysHowManyPreemptionsTheBugTook) {
  TestResult bug = WithVerdict("Bank.Transfer", TestVerdict::kConcurrencyBug);
  bug.outcome = "deadlock";
  EXPECT_EQ(AttributeOf(JunitXml(kSuite, {bug}), "failure", "message"), "deadlock");
  bug.preemptions = 0;
  EXPECT_EQ(AttributeOf(JunitXml(kSuite, {bug}), "failure", "message"), "deadlock with 0 preemptions");
  bug.preemptions = 2;
  bug.message = "threads 1 and 2 wait for each other";
  EXPECT_EQ(AttributeOf(JunitXml(kSuite, {bug}), "failure", "message"),
            "deadlock with 2 preemptions: threads 1 and 2 wait for each other");
}

TEST(JunitXml, WritesTimesWithThreeDecimals) {
  const auto time_of = [](double seconds) {
    TestResult result = Passed("Bank.Deposit");
    result.seconds = seconds;
    return AttributeOf(JunitXml(kSuite, {result}), "testcase", "time");
  };
  EXPECT_EQ(time_of(0), "0.000");
  EXPECT_EQ(time_of(1.23456), "1.235");
  EXPECT_EQ(time_of(3600), "3600.000");
  EXPECT_EQ(time_of(-1), "0.000");
}

TEST(JunitVerdictName, NamesEveryVerdict) {
  EXPECT_EQ(VerdictName(TestVerdict::kPassed), "passed");
  EXPECT_EQ(VerdictName(TestVerdict::kConcurrencyBug), "concurrency-bug");
  EXPECT_EQ(VerdictName(TestVerdict::kPlainFailure), "plain-failure");
  EXPECT_EQ(VerdictName(TestVerdict::kSkipped), "skipped");
  EXPECT_EQ(VerdictName(TestVerdict::kError), "error");
}

}  // namespace
}  // namespace chess::cli::suite
