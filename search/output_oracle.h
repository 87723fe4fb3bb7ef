// OutputOracle: what an execution's output must (not) hold for it to be correct, beyond how it
// ended (docs/oracles.md). --fail-on-output REGEX: no line of stdout or stderr may match;
// --expect-stdout FILE: stdout must be those bytes. The verdict quotes the offending lines.
// Pure logic: judged on bytes already captured.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "search/result.h"

namespace chess::search {

// What the user asked for, as options and traces keep it.
struct OutputOracleSpec {
  std::optional<std::string> fail_on_output;   // an ECMAScript regex
  std::optional<std::string> expected_stdout;  // the bytes stdout must be
  std::string expected_stdout_name;            // where they came from, for messages ("expected.txt")

  bool Any() const { return fail_on_output.has_value() || expected_stdout.has_value(); }
  bool operator==(const OutputOracleSpec&) const = default;
};

// A spec made ready to judge: the regex compiled.
class OutputOracle {
 public:
  // An error naming the option and the regex when it does not compile.
  static Result<OutputOracle> Make(OutputOracleSpec spec);

  const OutputOracleSpec& Spec() const { return spec_; }
  // Empty when `out` and `err` pass; otherwise what is wrong, quoting the lines: "stdout line 3
  // matches --fail-on-output 'ERROR': `ERROR: lost an update`".
  std::optional<std::string> Judge(std::string_view out, std::string_view err) const;

 private:
  OutputOracleSpec spec_;
  std::optional<std::regex> regex_;
};

// The first line where `actual` differs from `expected` (1-based), with both lines quoted, or
// empty when they are equal. `name` names the expected bytes.
std::optional<std::string> FirstDifference(std::string_view expected, std::string_view actual, const std::string& name);

}  // namespace chess::search
