// `chess-trace test [OPTIONS] [EXPLORE OPTIONS] -- TEST_COMMAND [ARGS…]`: finds the test cases of a
// test binary (GoogleTest, Catch2, doctest, pytest, Rust, Go, or a list), explores each in its own
// search with its own budget, and reports per test: a live line each, a summary, --report JSON,
// --junit XML (docs/testing-a-suite.md).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace chess::cli::suite {

struct TestOptions {
  std::vector<std::string> command;    // TEST_COMMAND ARGS…
  std::string framework;               // --framework; empty: detected
  std::string tests_file;              // --tests FILE
  std::string filter;                  // --filter REGEX
  bool list = false;                   // --list
  uint64_t per_test_executions = 2000;
  double per_test_seconds = 60;
  std::optional<double> time_limit_seconds;  // the whole run
  std::string junit_path;
  std::string report_path;
  std::string out_dir = "chess-trace-out";
  bool quiet = false;
  std::vector<std::string> explore_options;  // the options `test` does not know: explore's
};

CLI::App* AddTestCommand(CLI::App& app, TestOptions& options);
// After parsing: the options `test` left to explore, kept in `options`.
void TakeExploreOptions(CLI::App& test, TestOptions& options);
int TestCommand(const TestOptions& options);

}  // namespace chess::cli::suite
