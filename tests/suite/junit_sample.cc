// Writes the JUnit XML of a sample suite with every verdict and every kind of awkward text to FILE, for
// suite.junit_validates to check against tests/suite/junit.xsd. With --break KIND it writes the same
// document broken in one way the schema must reject, so the check is seen to fail:
//   no-name       a testcase without its name
//   two-results   a testcase both failed and skipped
//   out-of-order  a testcase's system-out before its failure
//
//   junit_sample [--break KIND] FILE
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/suite/junit.h"
#include "cli/suite/test_result.h"

namespace {

using chess::cli::suite::JunitSuite;
using chess::cli::suite::TestResult;
using chess::cli::suite::TestVerdict;

// Text a test or a report may well contain: markup characters, "]]>", quotes, ANSI colours and other
// control characters, broken and valid UTF-8, the noncharacters XML forbids.
std::string Nasty() {
  std::string text = "<tag attr=\"v\" other='w'> & &amp; ]]> ";
  text += std::string("nul:") + '\0' + " esc:\x1b[31mred\x1b[0m bell:\x07 form feed:\f cr:\r tab:\t";
  text += " broken:\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80\xE2\x82 nonchars:\xEF\xBF\xBE\xEF\xBF\xBF";
  text += " valid: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 del:\x7f c1:\xC2\x85 truncated at the end:\xF0\x9F\x98";
  return text;
}

std::vector<TestResult> Sample() {
  std::vector<TestResult> results;
  TestResult passed;
  passed.name = "Bank.Deposit";
  passed.seconds = 1.25;
  passed.executions = 300;
  passed.coverage = "Explored all 300 schedules with at most 2 preemptions.";
  results.push_back(passed);

  TestResult bare;  // passed, nothing to say
  bare.name = "Accounts/Bank.Balance/0";
  results.push_back(bare);

  TestResult bug;
  bug.name = "Bank.Transfer";
  bug.verdict = TestVerdict::kConcurrencyBug;
  bug.seconds = 2.5;
  bug.outcome = "signal";
  bug.preemptions = 1;
  bug.message = Nasty();
  bug.report = "signal (SIGABRT) at execution 7\n" + Nasty() + "\n";
  bug.replay_command = "chess-trace replay '/tmp/out/Bank.Transfer/bug-1.trace'";
  bug.trace_path = "/tmp/out/Bank.Transfer/bug-1.trace";
  bug.coverage = "Found at execution 7.";
  results.push_back(bug);

  TestResult plain;
  plain.name = "tests/test_bank.py::test_withdraw[<0>]";
  plain.verdict = TestVerdict::kPlainFailure;
  plain.message = "exit-status 1";
  plain.output = Nasty();
  plain.trace_path = "relative/bug-1.trace";
  results.push_back(plain);

  TestResult skipped;
  skipped.name = "Bank.DISABLED_Slow";
  skipped.verdict = TestVerdict::kSkipped;
  skipped.skip_reason = "disabled & \"slow\"";
  results.push_back(skipped);

  TestResult skipped_silently;
  skipped_silently.name = "bank::tests::budget";
  skipped_silently.verdict = TestVerdict::kSkipped;
  results.push_back(skipped_silently);

  TestResult error;
  error.name = Nasty();
  error.verdict = TestVerdict::kError;
  error.message = "cannot execute: " + Nasty();
  error.report = Nasty();
  results.push_back(error);
  return results;
}

// The document with its first occurrence of `from` after `after` replaced by `to`; empty if not found.
std::string Replaced(std::string xml, std::string_view after, std::string_view from, std::string_view to) {
  const size_t start = xml.find(after);
  if (start == std::string::npos) return "";
  const size_t at = xml.find(from, start);
  if (at == std::string::npos) return "";
  return xml.replace(at, from.size(), to);
}

// The sample broken as `kind` says; empty for an unknown kind.
std::string Broken(const std::string& xml, std::string_view kind) {
  if (kind == "no-name") return Replaced(xml, "<testcase", "name=\"Bank.Deposit\" ", "");
  if (kind == "two-results") return Replaced(xml, "<testcase name=\"Bank.DISABLED_Slow\"", "<skipped", "<failure/><skipped");
  if (kind == "out-of-order") {
    const size_t failure = xml.find("      <failure type=\"plain\"");
    const size_t end = xml.find("</failure>\n", failure);
    if (failure == std::string::npos || end == std::string::npos) return "";
    const std::string element = xml.substr(failure, end + std::string_view("</failure>\n").size() - failure);
    std::string moved = xml;
    moved.erase(failure, element.size());
    return Replaced(moved, "<testcase name=\"tests/test_bank.py", "    </testcase>", element + "    </testcase>");
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool broken = args.size() == 3 && args[0] == "--break";
  if (args.size() != 1 && !broken) {
    std::cerr << "usage: junit_sample [--break no-name|two-results|out-of-order] FILE\n";
    return 2;
  }
  const JunitSuite suite{"./build/bank_test --gtest_color=no <all>", "2026-11-27T05:12:24Z", "ci-runner", 42.0625};
  std::string xml = chess::cli::suite::JunitXml(suite, Sample());
  if (broken) {
    xml = Broken(xml, args[1]);
    if (xml.empty()) {
      std::cerr << "junit_sample: cannot break the sample as " << args[1] << "\n";
      return 2;
    }
  }
  std::ofstream file(args.back(), std::ios::binary);
  file << xml;
  if (!file.flush()) {
    std::cerr << "junit_sample: cannot write " << args.back() << "\n";
    return 1;
  }
  return 0;
}
