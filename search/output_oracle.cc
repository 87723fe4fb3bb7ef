#include "search/output_oracle.h"

#include <vector>

namespace chess::search {
namespace {

// How many matching lines a verdict quotes, and how long a quoted line may be.
constexpr size_t kQuotedLines = 3;
constexpr size_t kQuotedChars = 200;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Quote(std::string_view line) {
  std::string quoted = "`" + std::string(line.substr(0, kQuotedChars));
  if (line.size() > kQuotedChars) quoted += "…";
  return quoted + "`";
}

}  // namespace

Result<OutputOracle> OutputOracle::Make(OutputOracleSpec spec) {
  OutputOracle oracle;
  if (spec.fail_on_output) {
    if (spec.fail_on_output->empty()) return Error{"--fail-on-output: the regex is empty (it would match every line)"};
    try {
      oracle.regex_.emplace(*spec.fail_on_output, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return Error{"--fail-on-output '" + *spec.fail_on_output + "': not a regular expression (ECMAScript): " +
                   error.what()};
    }
  }
  oracle.spec_ = std::move(spec);
  return oracle;
}

std::optional<std::string> OutputOracle::Judge(std::string_view out, std::string_view err,
                                               const std::vector<std::optional<std::string>>& files) const {
  if (regex_) {
    std::string found;
    size_t matches = 0;
    for (const auto& [name, text] : {std::pair<const char*, std::string_view>{"stdout", out}, {"stderr", err}}) {
      const std::vector<std::string_view> lines = Lines(text);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (!std::regex_search(lines[i].begin(), lines[i].end(), *regex_)) continue;
        if (++matches <= kQuotedLines) {
          found += std::string(found.empty() ? "" : "; ") + name + " line " + std::to_string(i + 1) + ": " + Quote(lines[i]);
        }
      }
    }
    if (matches > 0) {
      std::string message = "the output matches --fail-on-output '" + *spec_.fail_on_output + "': " + found;
      if (matches > kQuotedLines) message += " (and " + std::to_string(matches - kQuotedLines) + " more lines)";
      return message;
    }
  }
  if (spec_.expected_stdout) {
    const std::string name = spec_.expected_stdout_name.empty() ? "the expected stdout" : spec_.expected_stdout_name;
    if (auto difference = FirstDifference(*spec_.expected_stdout, out)) {
      return "stdout differs from " + name + " " + *difference;
    }
  }
  for (size_t i = 0; i < spec_.expected_files.size(); ++i) {
    const ExpectedFile& expected = spec_.expected_files[i];
    const std::optional<std::string> actual = i < files.size() ? files[i] : std::nullopt;
    if (expected.content.has_value() != actual.has_value()) {
      return expected.content ? expected.path + " is missing; the reference execution wrote it"
                              : expected.path + " was written; the reference execution left none";
    }
    if (!actual) continue;
    if (auto difference = FirstDifference(*expected.content, *actual)) {
      return expected.path + " differs from the reference execution's " + *difference;
    }
  }
  return std::nullopt;
}

std::optional<std::string> OutputOracle::JudgeCheck(int status, bool timed_out, std::string_view output) const {
  if (!spec_.check_command || (status == 0 && !timed_out)) return std::nullopt;
  std::string message = "--check '" + *spec_.check_command + "' " +
                        (timed_out ? std::string("ran out of time") : "exited " + std::to_string(status));
  const std::vector<std::string_view> lines = Lines(output);
  for (size_t i = 0; i < lines.size() && i < kQuotedLines; ++i) message += (i == 0 ? ": " : "; ") + Quote(lines[i]);
  if (lines.size() > kQuotedLines) message += " (and " + std::to_string(lines.size() - kQuotedLines) + " more lines)";
  return message;
}

std::optional<std::string> FirstDifference(std::string_view expected, std::string_view actual) {
  if (expected == actual) return std::nullopt;
  const std::vector<std::string_view> want = Lines(expected);
  const std::vector<std::string_view> got = Lines(actual);
  for (size_t i = 0; i < want.size() || i < got.size(); ++i) {
    const std::string at = "at line " + std::to_string(i + 1) + ": ";
    if (i >= got.size()) return at + Quote(want[i]) + " expected, the output ends before it";
    if (i >= want.size()) return at + Quote(got[i]) + " written, past the end of what was expected";
    if (want[i] != got[i]) return at + Quote(want[i]) + " expected, " + Quote(got[i]) + " written";
  }
  // The same lines: they differ in the final newline.
  return std::string(expected.ends_with('\n') ? "at the end: a final newline expected, none written"
                                              : "at the end: a final newline written, none expected");
}

}  // namespace chess::search
