#include "cli/command_line.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace chess::cli {
namespace {

// The number `text` spells in full, or nothing ("12abc", "", "1e3" for a whole number).
std::optional<uint64_t> ParseWhole(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return value;
}

std::optional<double> ParseReal(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

CLI::Validator WholeNumber(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const std::optional<uint64_t> value = ParseWhole(text);
        if (value && *value >= min && *value <= max) return {};
        return "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", not " +
               Quoted(text);
      },
      "");
}

CLI::Validator AtLeastOne() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<uint64_t> value = ParseWhole(text);
        if (value && *value >= 1) return {};
        return "expected a whole number of at least 1, not " + Quoted(text);
      },
      "");
}

CLI::Validator PositiveAmount(const std::string& unit, double max) {
  return CLI::Validator(
      [unit, max](std::string& text) -> std::string {
        const std::optional<double> value = ParseReal(text);
        if (value && *value > 0 && *value <= max) return {};
        return "expected a number of " + unit + " greater than 0" +
               (max < 1e9 ? " and at most " + Number(max) : std::string()) + ", not " + Quoted(text);
      },
      "");
}

CLI::Validator AmountFrom(const std::string& unit, double min, double max) {
  return CLI::Validator(
      [unit, min, max](std::string& text) -> std::string {
        const std::optional<double> value = ParseReal(text);
        if (value && *value >= min && *value <= max) return {};
        return "expected a number of " + unit + " from " + Number(min) + " to " + Number(max) + ", not " + Quoted(text);
      },
      "");
}

CLI::Validator OneOf(std::vector<std::string> words) {
  return CLI::Validator(
      [words](std::string& text) -> std::string {
        if (std::find(words.begin(), words.end(), text) != words.end()) return {};
        std::string list;
        for (size_t i = 0; i < words.size(); ++i) list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
        return "expected " + list + ", not " + Quoted(text);
      },
      "");
}

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool is_positional) const {
  std::string name = CLI::Formatter::make_option_name(option, is_positional);
  // A flag declared "!--no-minimize" or "--state-cache,!--no-state-cache" is named with the value
  // it stores in braces; a person needs only the names.
  for (size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
    const size_t close = name.find('}', open);
    if (close == std::string::npos) break;
    name.erase(open, close - open + 1);
  }
  return name;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  if (option->get_type_size() == 0) return {};  // a flag
  std::string text;
  // The type name without the validators' descriptions (which our validators leave empty) and
  // without CLI11's "TEXT"/"INT" where no name was given.
  std::string type = option->get_type_name();
  if (type == "TEXT" || type == "INT" || type == "UINT" || type == "FLOAT") type = "VALUE";
  if (!type.empty()) text += " " + type;
  if (option->get_expected_max() == CLI::detail::expected_max_vector_size) text += " ...";
  if (!option->get_default_str().empty()) text += " (default: " + option->get_default_str() + ")";
  return text;
}

const std::vector<std::string>& CommandNames() {
  static const std::vector<std::string> names = {"run", "explore", "test", "merge", "replay", "show"};
  return names;
}

std::string CommandOf(const std::vector<std::string>& arguments) {
  for (const std::string& word : arguments) {
    if (std::find(CommandNames().begin(), CommandNames().end(), word) != CommandNames().end()) return word;
  }
  return {};
}

std::string UnknownCommandOf(const std::vector<std::string>& arguments) {
  for (const std::string& word : arguments) {
    if (word.empty() || word.front() == '-') continue;
    if (std::find(CommandNames().begin(), CommandNames().end(), word) != CommandNames().end()) return {};
    return word;
  }
  return {};
}

std::string ParseErrorText(const CLI::ParseError& error, const std::string& command) {
  const std::string what = error.what();
  if (command.empty() && what.find("subcommand") != std::string::npos) {
    return "say which command: run, explore, replay or show (chess-trace --help)";
  }
  if (what == "trace is required") return "name the trace file: chess-trace " + command + " TRACE";
  if (const std::string extras = "The following argument was not expected: "; what.rfind(extras, 0) == 0) {
    return "unexpected argument " + what.substr(extras.size()) +
           (command == "run" || command == "explore" ? " (the program and its arguments go after --)" : "");
  }
  if (const std::string extras = "The following arguments were not expected: "; what.rfind(extras, 0) == 0) {
    return "unexpected arguments " + what.substr(extras.size()) +
           (command == "run" || command == "explore" ? " (the program and its arguments go after --)" : "");
  }
  return what;
}

std::string UsageLine(const std::string& command) {
  if (command == "run" || command == "explore") {
    return "Usage: chess-trace " + command +
           " [OPTIONS] -- PROGRAM [ARGS...]  (the -- is needed when the program's arguments start with a dash; see "
           "chess-trace " + command + " --help)";
  }
  if (command == "test") {
    return "Usage: chess-trace test [OPTIONS] [EXPLORE OPTIONS] -- TEST_COMMAND [ARGS...]  (see chess-trace test "
           "--help)";
  }
  if (command == "replay") {
    return "Usage: chess-trace replay [OPTIONS] TRACE [-- PROGRAM [ARGS...]]  (see chess-trace replay --help)";
  }
  if (command == "show") return "Usage: chess-trace show [--format text|json|chrome] TRACE  (see chess-trace show --help)";
  if (command == "merge") return "Usage: chess-trace merge [--report FILE] REPORT...  (see chess-trace merge --help)";
  return "Usage: chess-trace run|explore|test|merge|replay|show [OPTIONS] ...  (see chess-trace --help)";
}

}  // namespace chess::cli
