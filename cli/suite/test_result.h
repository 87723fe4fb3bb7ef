// What `chess-trace test` found for one test case: the verdict of its own search and what a
// report of it needs. The one type the live lines, the summary table, --report and --junit read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chess::cli::suite {

enum class TestVerdict : uint8_t {
  kPassed,          // no bug within its bound (or its budget, when the bound was covered)
  kConcurrencyBug,  // failed only under a schedule the search found: a trace replays it
  kPlainFailure,    // failed in its first, non-preemptive schedule: not a concurrency bug
  kSkipped,         // disabled, or its budget ran out before its bound was covered
  kError,           // chess-trace could not search it (the search's own error)
};

// "passed", "concurrency-bug", "plain-failure", "skipped", "error".
std::string_view VerdictName(TestVerdict verdict);

struct TestResult {
  std::string name;
  TestVerdict verdict = TestVerdict::kPassed;
  double seconds = 0;                // wall time of its search
  uint64_t executions = 0;
  std::string outcome;               // the failing execution's outcome ("assertion", "deadlock", …)
  std::optional<int64_t> preemptions;  // of the reported failing schedule
  std::string message;               // the failure's one-line message
  std::string report;                // the search's whole report text, as explore printed it
  std::string replay_command;        // the one command that replays the failure
  std::string trace_path;            // the failure's trace
  std::string coverage;              // the coverage sentence of its search
  std::string skip_reason;           // why it was skipped
  std::string output;                // what the test printed (a plain failure's output tail)
  std::string out_dir;               // where its traces and report are (--out/<safe name>)
};

}  // namespace chess::cli::suite
