// JUnit XML for a suite's results, the dialect Jenkins, GitLab and GitHub's test reporters read
// (tests/suite/junit.xsd is the schema the tests validate it with): one testsuite, one testcase per
// test, a `failure` per bug (type "concurrency" or "plain"), `skipped` with its reason, the
// coverage in system-out, and the trace as an attachment line ([[ATTACHMENT|path]]).
#pragma once

#include <string>
#include <vector>

#include "cli/suite/test_result.h"

namespace chess::cli::suite {

struct JunitSuite {
  std::string name;       // the test command, as the user gave it
  std::string timestamp;  // ISO 8601, UTC, when the run began
  std::string hostname;
  double seconds = 0;
};

// The whole document, UTF-8; text that is not valid XML 1.0 (control characters, broken UTF-8)
// is replaced, never written raw.
std::string JunitXml(const JunitSuite& suite, const std::vector<TestResult>& results);

}  // namespace chess::cli::suite
