// OutputOracle: what an execution's output must (not) hold for it to be correct, beyond how it
// ended (docs/oracles.md). --fail-on-output REGEX: no line of stdout or stderr may match;
// --expect-stdout FILE, or --same-output's reference: stdout must be those bytes; --output-file
// with --same-output: each file must hold the reference's bytes (or be missing as it was); --check
// CMD: the command must exit 0 (run by the CLI; judged here). The verdict quotes the offending
// lines. Pure logic: judged on bytes already captured.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "search/result.h"

namespace chess::search {

// A file an execution must leave as the reference execution left it.
struct ExpectedFile {
  std::string path;                    // as --output-file gave it (relative: from the working directory)
  std::optional<std::string> content;  // empty: the reference left no such file
  bool operator==(const ExpectedFile&) const = default;
};

// What the user asked for, as options and traces keep it.
struct OutputOracleSpec {
  std::optional<std::string> fail_on_output;   // an ECMAScript regex
  std::optional<std::string> expected_stdout;  // the bytes stdout must be
  std::string expected_stdout_name;            // where they came from, for messages ("expected.txt")
  std::vector<ExpectedFile> expected_files;    // --same-output --output-file: the reference's files
  std::optional<std::string> check_command;    // --check: a shell command that must exit 0

  bool Any() const {
    return fail_on_output.has_value() || expected_stdout.has_value() || !expected_files.empty() ||
           check_command.has_value();
  }
  bool operator==(const OutputOracleSpec&) const = default;
};

// A spec made ready to judge: the regex compiled.
class OutputOracle {
 public:
  // An error naming the option and the regex when it does not compile.
  static Result<OutputOracle> Make(OutputOracleSpec spec);

  const OutputOracleSpec& Spec() const { return spec_; }
  // Empty when `out` and `err` pass; otherwise what is wrong, quoting the lines: "stdout line 3
  // matches --fail-on-output 'ERROR': `ERROR: lost an update`". `files`: the contents of each of
  // the spec's expected files as the execution left them (empty: missing), in its order.
  std::optional<std::string> Judge(std::string_view out, std::string_view err,
                                   const std::vector<std::optional<std::string>>& files = {}) const;
  // Empty when --check's command exited 0; otherwise its status and the first lines it printed.
  std::optional<std::string> JudgeCheck(int status, bool timed_out, std::string_view output) const;

 private:
  OutputOracleSpec spec_;
  std::optional<std::regex> regex_;
};

// Where `actual` first differs from `expected`, both lines quoted ("at line 2: `sum 20` expected,
// `sum 19` written"), or empty when they are equal.
std::optional<std::string> FirstDifference(std::string_view expected, std::string_view actual);

}  // namespace chess::search
