// How chess-trace's command line reads to a person: option checks whose errors say what was
// expected, a --help layout without CLI11's internal notation, and the usage line of the command
// that was mistyped.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace chess::cli {

// A whole number from `min` to `max`: "--preemption-bound abc: expected a whole number from 0
// to 20". Its description is empty, so --help does not append ":INT in [0 - 20]" to the name.
CLI::Validator WholeNumber(uint64_t min, uint64_t max);
// A count of at least 1 ("expected a whole number of at least 1").
CLI::Validator AtLeastOne();
// A number of seconds (or milliseconds: `unit`) greater than 0, at most `max`.
CLI::Validator PositiveAmount(const std::string& unit, double max = 1e9);
// A number of `unit` from `min` to `max`, both included (--slice: 0.1 to 10000 milliseconds).
CLI::Validator AmountFrom(const std::string& unit, double min, double max);
// One of `words`: "--strategy fast: expected one of pb, pct, random, portfolio".
CLI::Validator OneOf(std::vector<std::string> words);

// --help as a person reads it: "--max-executions N (default: 100000)" instead of
// "--max-executions N:POSITIVE=100000", and a flag named once, without its "{false}".
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* option, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* option) const override;
};

// The commands chess-trace knows, in the order --help lists them.
const std::vector<std::string>& CommandNames();
// The command a command line names (its first word that is one), or "" when none does.
std::string CommandOf(const std::vector<std::string>& arguments);
// The first word that is neither an option nor a command: what a person meant as a command
// ("frob" in `chess-trace frob`), or "".
std::string UnknownCommandOf(const std::vector<std::string>& arguments);
// A CLI11 parse error of `command` ("" when none was named) in words: "--preemption-bound:
// expected a whole number from 0 to 20, not 'abc'", "say which command: run, explore, …".
std::string ParseErrorText(const CLI::ParseError& error, const std::string& command);
// "Usage: chess-trace explore [OPTIONS] -- PROGRAM [ARGS...]" for that command.
std::string UsageLine(const std::string& command);

}  // namespace chess::cli
