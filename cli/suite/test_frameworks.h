// The test frameworks `chess-trace test` knows: how to tell which one a test command uses (from
// the binary's strings, before running it with flags it may not understand), how to list its
// test cases, and the command that runs one case alone (docs/testing-a-suite.md).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/result.h"

namespace chess::cli::suite {

// How each lists its cases and runs one alone (the user's arguments stay, but those that select
// tests, which give way to the case's own selection):
enum class Framework : uint8_t {
  kGoogleTest,  // --gtest_list_tests; + --gtest_filter=Suite.Name (DISABLED_ ones disabled)
  kCatch2,      // v2: --list-test-names-only; v3: --list-tests --verbosity quiet; the name as a test spec
                // (\ before \ , [ ] " and a leading ~) instead of the user's specs
  kDoctest,     // --dt-list-test-cases; + --dt-test-case=NAME (\ before , and \)
  kPytest,      // python -m pytest --collect-only -q -p no:cacheprovider ARGS; python -m pytest -q -p
                // no:cacheprovider NODE-ID ARGS: the user's Python and arguments, but the paths and node ids
  kRust,        // a libtest binary (cargo test --no-run): --list --format terse; NAME --exact --test-threads=1
                // instead of the user's filters (#[ignore]d ones disabled)
  kGo,          // a `go test -c` binary: -test.list '.*'; + -test.run '^Name$' -test.count=1
  kList,        // --tests FILE: one shell command per line
};

// "gtest", "catch2", "doctest", "pytest", "rust", "go", "list": the spellings --framework takes.
std::string_view FrameworkName(Framework framework);
std::optional<Framework> ParseFrameworkName(std::string_view name);
// The frameworks, for errors and --help: "gtest, catch2, doctest, pytest, rust, go (or --tests FILE)".
std::string SupportedFrameworks();

// One test case, as the suite runs it.
struct TestCase {
  std::string name;                  // as its framework names it: Suite.Name, a node id, a Go test
  std::vector<std::string> command;  // the command that runs this case alone
  bool disabled = false;             // listed but disabled (GoogleTest's DISABLED_): reported skipped
  bool operator==(const TestCase&) const = default;
};

// What a test command's binary was found to be; `version` tells Catch2 2 from 3 (0 otherwise).
struct DetectedFramework {
  Framework framework;
  int version = 0;
  bool operator==(const DetectedFramework&) const = default;
};

// Which framework `command` uses, from its binary's strings and symbols (a script run by python3,
// or pytest itself, is pytest). The error names the supported frameworks and --framework.
Result<DetectedFramework> DetectFramework(const std::vector<std::string>& command);
// The same for a forced --framework (Catch2's version still read from the binary).
Result<DetectedFramework> ForcedFramework(Framework framework, const std::vector<std::string>& command);

// Runs `command`'s listing natively (no tracing: stdin /dev/null, its own process group, killed
// with whatever it started when it ends) and parses it; the error quotes the listing's exit status
// and the first lines of its stderr. A listing that runs longer than `timeout` is killed and is an
// error. No test found is no error. Rust's is listed twice, the second time its #[ignore]d tests.
Result<std::vector<TestCase>> ListTests(const DetectedFramework& framework, const std::vector<std::string>& command,
                                        std::chrono::seconds timeout);

// The pure halves, unit-tested on listings captured from the real frameworks.
std::vector<std::string> ListingCommand(const DetectedFramework& framework, const std::vector<std::string>& command);
Result<std::vector<TestCase>> ParseListing(const DetectedFramework& framework, const std::vector<std::string>& command,
                                           std::string_view listing);
// --tests FILE: one command per line, run by /bin/sh -c; blank lines and lines starting with '#'
// skipped; a case is named by its line's text.
Result<std::vector<TestCase>> ReadTestList(const std::string& path);

}  // namespace chess::cli::suite
