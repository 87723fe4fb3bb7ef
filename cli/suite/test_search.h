// One test case's own search: `chess-trace explore` run as a child process on the case's command,
// with its budget, and what its report says turned into the test's result (docs/testing-a-suite.md).
// A child process, not a function call: each search owns its namespaces, capture, pinning and
// signal handling, and a search that fails cannot take the suite down with it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cli/json_reader.h"
#include "cli/suite/test_frameworks.h"
#include "cli/suite/test_result.h"

namespace chess::cli::suite {

struct TestBudget {
  uint64_t executions = 2000;              // --per-test-executions
  double seconds = 60;                     // --per-test-time
  double execution_timeout_seconds = 60;   // explore's --execution-timeout, for the hard limit
  bool checks = false;                     // explore's --check: each execution may run it too
};

// What `explore` is told for every case: the user's explore options, and whether the search
// is a pb search (whose bound can be covered; a sampled one stops at its budget by design).
struct SearchSettings {
  std::string chess_trace;                 // the executable (this one)
  std::vector<std::string> explore_options;
  bool bounded_search = true;
  TestBudget budget;
};

// The explore command line for `test_case`, writing into `out_dir`.
std::vector<std::string> ExploreCommandLine(const SearchSettings& settings, const TestCase& test_case,
                                            const std::string& out_dir, double seconds);

// Runs the case's search and returns its result; `seconds` may be less than the budget when the
// whole run's --time-limit is near.
TestResult SearchTest(const SearchSettings& settings, const TestCase& test_case, const std::string& out_dir,
                      double seconds);

// The pure half: the result the search's exit status, JSON report and text report say.
// `report` is null when none was written.
TestResult ResultFromReport(const TestCase& test_case, int exit_status, const JsonValue* report,
                            const std::string& text, bool bounded_search, const TestBudget& budget);

// A name made safe as one path component: [A-Za-z0-9._-] kept, the rest '_', no leading '.',
// at most 120 bytes; `taken` makes it unique (a -2, -3… suffix) and remembers it.
std::string SafeName(const std::string& name, std::vector<std::string>& taken);

}  // namespace chess::cli::suite
