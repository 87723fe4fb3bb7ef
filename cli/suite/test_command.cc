#include "cli/suite/test_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <regex>

#include "cli/command_line.h"
#include "cli/execution.h"
#include "cli/exit_codes.h"
#include "cli/explore_command.h"
#include "cli/json_writer.h"
#include "cli/messages.h"
#include "cli/suite/junit.h"
#include "cli/suite/test_frameworks.h"
#include "cli/suite/test_search.h"
#include "supervisor/ptrace/event_waiter.h"

namespace chess::cli::suite {
namespace {

// How long a listing may take.
constexpr std::chrono::seconds kListingTimeout{60};
// --report's schema for `test`, and for `test --list`.
constexpr int kSuiteReportSchema = 1;

// explore's options that `test` owns, with the option of its own that replaces each.
const std::vector<std::pair<std::string, std::string>>& OwnedOptions() {
  static const std::vector<std::pair<std::string, std::string>> owned = {
      {"--max-executions", "--per-test-executions"}, {"--time-limit", "--per-test-time (and --time-limit for the run)"},
      {"--out", "--out"}, {"--report", "--report"}, {"--quiet", "--quiet"}, {"--log", "nothing"},
      {"--shard", "--filter to split the tests between machines"}};
  return owned;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", seconds);
  return text;
}

bool MakeDirectories(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at == path.size() || path[at] == '/') {
      const std::string prefix = path.substr(0, at);
      if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

std::string ExecutableOfThisProcess() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return length > 0 ? std::string(path, static_cast<size_t>(length)) : std::string("chess-trace");
}

// The explore options, checked by explore's own parser; the error says what is wrong. Fills in
// what `test` needs to know of them.
Result<ExploreOptions> CheckExploreOptions(const std::vector<std::string>& given) {
  for (const std::string& word : given) {
    for (const auto& [option, instead] : OwnedOptions()) {
      if (word == option || word.rfind(option + "=", 0) == 0) {
        return Error{option + " is not for `test`, which runs each test's search itself: use " + instead};
      }
    }
  }
  CLI::App scratch{"", "chess-trace"};
  ExploreOptions parsed;
  AddExploreCommand(scratch, parsed);
  std::vector<std::string> words = {"explore"};
  words.insert(words.end(), given.begin(), given.end());
  std::reverse(words.begin(), words.end());
  try {
    scratch.parse(words);
  } catch (const CLI::ParseError& error) {
    return Error{ParseErrorText(error, "explore")};
  }
  if (!parsed.program.command.empty()) {
    return Error{"'" + parsed.program.command.front() + "' is not an option of `test` or `explore`; the test command "
                 "goes after --"};
  }
  return parsed;
}

// The live line and the result line of one test.
std::string ResultLine(const TestResult& result, size_t index, size_t count) {
  const std::string at = "[" + std::to_string(index) + "/" + std::to_string(count) + "] ";
  const std::string executions = std::to_string(result.executions) + " executions, " + SecondsText(result.seconds);
  switch (result.verdict) {
    case TestVerdict::kPassed: return at + "passed   " + result.name + " (" + executions + ")";
    case TestVerdict::kConcurrencyBug:
      return at + "FAILED   " + result.name + ": concurrency bug, " + result.outcome + " with " +
             std::to_string(result.preemptions.value_or(0)) + " preemption" +
             (result.preemptions == 1 ? "" : "s") + " (" + executions + ")";
    case TestVerdict::kPlainFailure:
      return at + "FAILED   " + result.name + ": fails without any preemption, " + result.outcome + " (" +
             executions + ")";
    case TestVerdict::kSkipped: return at + "skipped  " + result.name + ": " + result.skip_reason;
    case TestVerdict::kError: return at + "ERROR    " + result.name + ": " + result.message;
  }
  return at + result.name;
}

std::string Indented(const std::string& text, const std::string& indent) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += indent + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// How many tests had each verdict, indexed by TestVerdict.
std::array<size_t, 5> VerdictCounts(const std::vector<TestResult>& results) {
  std::array<size_t, 5> counts{};
  for (const TestResult& result : results) ++counts[static_cast<size_t>(result.verdict)];
  return counts;
}

std::string Summary(const std::vector<TestResult>& results, double seconds) {
  const std::array<size_t, 5> counts = VerdictCounts(results);
  std::string text = "chess-trace test: " + std::to_string(results.size()) + " tests in " + SecondsText(seconds) +
                     ": " + std::to_string(counts[0]) + " passed, " + std::to_string(counts[1]) +
                     " concurrency bug" + (counts[1] == 1 ? "" : "s") + ", " + std::to_string(counts[2]) +
                     " failing without any preemption, " + std::to_string(counts[3]) + " skipped" +
                     (counts[4] > 0 ? ", " + std::to_string(counts[4]) + " not searched (errors)" : "") + "\n";
  for (const TestResult& result : results) {
    if (result.verdict == TestVerdict::kPassed) continue;
    const char* word = result.verdict == TestVerdict::kSkipped ? "skipped" :
                       result.verdict == TestVerdict::kError   ? "error  " : "FAILED ";
    text += "  " + std::string(word) + " " + result.name + "\n";
    if (result.verdict == TestVerdict::kConcurrencyBug || result.verdict == TestVerdict::kPlainFailure) {
      text += "          " + (result.verdict == TestVerdict::kPlainFailure ? std::string("fails without any preemption: ")
                                                                            : std::string("concurrency bug: ")) +
              result.message + "\n";
      if (!result.replay_command.empty()) text += "          replay it: " + result.replay_command + "\n";
    } else {
      text += "          " + (result.verdict == TestVerdict::kSkipped ? result.skip_reason : result.message) + "\n";
    }
  }
  return text;
}

std::string SuiteJson(const TestOptions& options, const std::string& framework, const std::vector<TestResult>& results,
                      double seconds) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(kSuiteReportSchema);
  json.Key("command").String("test");
  json.Key("framework").String(framework);
  json.Key("test_command").BeginArray();
  for (const std::string& word : options.command) json.String(word);
  json.EndArray();
  const std::array<size_t, 5> counts = VerdictCounts(results);
  json.Key("tests_run").Int(static_cast<int64_t>(results.size()));
  json.Key("passed").Int(static_cast<int64_t>(counts[0]));
  json.Key("concurrency_bugs").Int(static_cast<int64_t>(counts[1]));
  json.Key("plain_failures").Int(static_cast<int64_t>(counts[2]));
  json.Key("skipped").Int(static_cast<int64_t>(counts[3]));
  json.Key("errors").Int(static_cast<int64_t>(counts[4]));
  json.Key("wall_seconds").Double(seconds);
  json.Key("tests").BeginArray();
  for (const TestResult& result : results) {
    json.BeginObject();
    json.Key("name").String(result.name);
    json.Key("verdict").String(VerdictName(result.verdict));
    json.Key("outcome").String(result.outcome);
    json.Key("executions").Int(static_cast<int64_t>(result.executions));
    json.Key("seconds").Double(result.seconds);
    json.Key("preemptions").OptionalInt(result.preemptions);
    json.Key("message").String(result.message);
    json.Key("skip_reason").String(result.skip_reason);
    json.Key("coverage").String(result.coverage);
    json.Key("trace").String(result.trace_path);
    json.Key("replay_command").String(result.replay_command);
    json.Key("out").String(result.out_dir);
    json.Key("output_tail").String(result.output);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str() + "\n";
}

std::string ListingJson(const std::string& framework, const std::vector<std::string>& command,
                        const std::vector<TestCase>& tests) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(kSuiteReportSchema);
  json.Key("framework").String(framework);
  json.Key("command").BeginArray();
  for (const std::string& word : command) json.String(word);
  json.EndArray();
  json.Key("tests").BeginArray();
  for (const TestCase& test : tests) {
    json.BeginObject();
    json.Key("name").String(test.name);
    json.Key("command").BeginArray();
    for (const std::string& word : test.command) json.String(word);
    json.EndArray();
    json.Key("disabled").Bool(test.disabled);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str() + "\n";
}

std::string NowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return text;
}

std::string HostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace

CLI::App* AddTestCommand(CLI::App& app, TestOptions& options) {
  CLI::App* test = app.add_subcommand(
      "test",
      "Find the test cases of a test binary and explore each in its own search: GoogleTest, Catch2 (v2 and v3), "
      "doctest, pytest, Rust test binaries (cargo test --no-run) and Go test binaries (go test -c), found from "
      "the binary's strings before it is run; or a list of commands (--tests FILE). Each test gets its own "
      "budget (--per-test-executions, --per-test-time), a live line, and its verdict: passed, a concurrency bug "
      "(it fails only under a schedule the search found: a trace replays it), failing without any preemption "
      "(it fails in the first, non-preemptive schedule: a plain failure), or skipped (disabled, or its budget "
      "ran out before its bound was covered). Every option of `chess-trace explore` (--preemption-bound, "
      "--strategy, --sync-points, --fail-on-output, --same-output, --check, ...) applies to every test; the "
      "traces and each search's report go to --out/<test name>/. --junit writes JUnit XML for CI. Exit "
      "status: 0 every test passed (or was skipped), 1 a test failed, 125 no test found, the listing failed, "
      "or a search could not run, 130/143/129 interrupted.\n\n"
      "Examples:\n"
      "  chess-trace test -- ./build/unit_tests\n"
      "  chess-trace test --junit results.xml --preemption-bound 1 -- ./build/unit_tests\n"
      "  chess-trace test --filter 'Queue\\.' --per-test-time 120 -- ./build/unit_tests\n"
      "  chess-trace test -- python3 -m pytest tests/test_pool.py\n"
      "  chess-trace test --list -- ./build/unit_tests");
  test->allow_extras();
  test->add_option("--framework", options.framework,
                   "The test framework, when it cannot be told from the binary: " + SupportedFrameworks())
      ->type_name("NAME");
  test->add_option("--tests", options.tests_file,
                   "Run the commands of FILE instead of a framework's tests: one per line, run by /bin/sh -c, named "
                   "by their text ('#' lines and blank lines skipped)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  test->add_option("--filter", options.filter, "Only the tests whose names REGEX matches (ECMAScript, searched)")
      ->type_name("REGEX");
  test->add_flag("--list", options.list,
                 "List the tests (names, one per line) and exit; with --report, their names and commands as JSON");
  test->add_option("--per-test-executions", options.per_test_executions,
                   "The most executions each test's search runs")
      ->type_name("N")
      ->check(AtLeastOne())
      ->capture_default_str();
  test->add_option("--per-test-time", options.per_test_seconds, "The most seconds of wall time each test's search takes")
      ->type_name("S")
      ->check(PositiveAmount("seconds"))
      ->capture_default_str();
  test->add_option("--time-limit", options.time_limit_seconds,
                   "Stop starting tests after S seconds of the whole run; those left are skipped, saying so")
      ->type_name("S")
      ->check(PositiveAmount("seconds"));
  test->add_option("--junit", options.junit_path,
                   "Write JUnit XML to FILE: a testcase per test, a failure per bug (type concurrency or plain, with "
                   "the report and the replay command), skipped with its reason, the coverage and the trace "
                   "([[ATTACHMENT|path]]) in system-out")
      ->type_name("FILE");
  test->add_option("--report", options.report_path, "Write a JSON report (one entry per test) to FILE")
      ->type_name("FILE");
  test->add_option("--out", options.out_dir, "Where each test's traces and report go, in a directory of its own")
      ->type_name("DIR")
      ->capture_default_str();
  test->add_flag("--quiet", options.quiet, "No line per test while the run goes on; the summary only");
  return test;
}

void TakeExploreOptions(CLI::App& test, TestOptions& options) { options.explore_options = test.remaining(); }

int TestCommand(const TestOptions& options) {
  Messages messages;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (options.command.empty() == options.tests_file.empty()) {
    messages.Say(options.command.empty()
                     ? "no test command given. Usage: chess-trace test [OPTIONS] -- TEST_COMMAND [ARGS...], or --tests FILE"
                     : "--tests FILE names the commands itself: give no TEST_COMMAND with it");
    return kExitError;
  }
  Result<ExploreOptions> explore = CheckExploreOptions(options.explore_options);
  if (!explore) {
    messages.Say(explore.error());
    return kExitError;
  }
  std::optional<std::regex> filter;
  if (!options.filter.empty()) {
    try {
      filter.emplace(options.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      messages.Say("--filter '" + options.filter + "': not a regular expression: " + error.what());
      return kExitError;
    }
  }
  for (const auto& [option, path] : {std::pair<std::string, std::string>{"--junit", options.junit_path},
                                     {"--report", options.report_path}}) {
    if (path.empty()) continue;
    if (auto checked = CheckFileDestination(option, path); !checked) {
      messages.Say(checked.error());
      return kExitError;
    }
  }
  // The tests.
  std::string framework_name = "list";
  Result<std::vector<TestCase>> listed = Error{""};
  if (!options.tests_file.empty()) {
    listed = ReadTestList(options.tests_file);
  } else {
    Result<DetectedFramework> framework = Error{""};
    if (!options.framework.empty()) {
      auto named = ParseFrameworkName(options.framework);
      if (!named) {
        messages.Say("--framework " + options.framework + ": not one chess-trace knows: " + SupportedFrameworks());
        return kExitError;
      }
      framework = ForcedFramework(*named, options.command);
    } else {
      framework = DetectFramework(options.command);
    }
    if (!framework) {
      messages.Say(framework.error());
      return kExitError;
    }
    framework_name = std::string(FrameworkName(framework->framework));
    if (!options.quiet && !options.list) messages.Live("listing the tests (" + framework_name + ")");
    listed = ListTests(*framework, options.command, kListingTimeout);
    messages.ClearLive();
  }
  if (!listed) {
    messages.Say("the tests could not be listed: " + listed.error());
    return kExitError;
  }
  std::vector<TestCase> tests;
  for (TestCase& test : *listed) {
    if (!filter || std::regex_search(test.name, *filter)) tests.push_back(std::move(test));
  }
  if (options.list) {
    for (const TestCase& test : tests) std::printf("%s%s\n", test.name.c_str(), test.disabled ? "  (disabled)" : "");
    std::fflush(stdout);
    if (!options.report_path.empty()) {
      std::string error;
      if (!WriteFileAtomically(options.report_path, ListingJson(framework_name, options.command, tests), error)) {
        messages.Say(error);
        return kExitError;
      }
    }
    return 0;
  }
  if (tests.empty()) {
    messages.Say(listed->empty() ? "no tests found in " + Joined(options.command) + " (" + framework_name + ")"
                                 : "no test's name matches --filter '" + options.filter + "'");
    return kExitError;
  }
  if (auto checked = CheckDirectoryDestination("--out", options.out_dir); !checked) {
    messages.Say(checked.error());
    return kExitError;
  }
  SearchSettings settings;
  settings.chess_trace = ExecutableOfThisProcess();
  settings.explore_options = options.explore_options;
  settings.bounded_search = search::Bounded(explore->strategy);
  settings.budget.executions = options.per_test_executions;
  settings.budget.seconds = options.per_test_seconds;
  settings.budget.execution_timeout_seconds = explore->execution_timeout_seconds;
  settings.budget.checks = explore->check_command.has_value();

  supervisor::InstallStopHandlers();
  std::vector<TestResult> results;
  std::vector<std::string> taken;
  for (size_t i = 0; i < tests.size(); ++i) {
    const TestCase& test = tests[i];
    const std::string out_dir = options.out_dir + "/" + SafeName(test.name, taken);
    TestResult result;
    result.name = test.name;
    result.out_dir = out_dir;
    const double left = options.time_limit_seconds ? *options.time_limit_seconds - elapsed() : options.per_test_seconds;
    if (supervisor::PendingStopSignal() != 0) {
      result.verdict = TestVerdict::kSkipped;
      result.skip_reason = "the run was interrupted before it";
    } else if (test.disabled) {
      result.verdict = TestVerdict::kSkipped;
      result.skip_reason = "disabled in the test framework";
    } else if (left <= 0) {
      result.verdict = TestVerdict::kSkipped;
      result.skip_reason = "the run's --time-limit was reached before it";
    } else if (!MakeDirectories(out_dir)) {
      result.verdict = TestVerdict::kError;
      result.message = "cannot make " + out_dir + ": " + std::strerror(errno);
    } else {
      if (!options.quiet) {
        messages.Live("[" + std::to_string(i + 1) + "/" + std::to_string(tests.size()) + "] " + test.name + " …");
      }
      result = SearchTest(settings, test, out_dir, std::min(options.per_test_seconds, left));
      if (supervisor::PendingStopSignal() != 0 && result.verdict != TestVerdict::kConcurrencyBug &&
          result.verdict != TestVerdict::kPlainFailure) {
        result.verdict = TestVerdict::kSkipped;
        result.skip_reason = "the run was interrupted during its search";
      }
    }
    if (!options.quiet) messages.Raw(ResultLine(result, i + 1, tests.size()) + "\n");
    results.push_back(std::move(result));
  }
  const double seconds = elapsed();
  // The reports of the failures, then the summary.
  for (const TestResult& result : results) {
    if (result.verdict != TestVerdict::kConcurrencyBug && result.verdict != TestVerdict::kPlainFailure) continue;
    messages.Raw("\n" + result.name + ":\n" + Indented(result.report, "  "));
  }
  messages.Raw("\n" + Summary(results, seconds));
  bool written = true;
  std::string error;
  if (!options.report_path.empty() &&
      !WriteFileAtomically(options.report_path, SuiteJson(options, framework_name, results, seconds), error)) {
    messages.Say(error);
    written = false;
  }
  if (!options.junit_path.empty()) {
    JunitSuite suite{options.command.empty() ? options.tests_file : Joined(options.command), NowIso8601(), HostName(),
                     seconds};
    if (!WriteFileAtomically(options.junit_path, JunitXml(suite, results), error)) {
      messages.Say(error);
      written = false;
    }
  }
  if (int signal = supervisor::PendingStopSignal(); signal != 0) return 128 + signal;
  bool failed = false;
  bool errors = !written;
  for (const TestResult& result : results) {
    failed |= result.verdict == TestVerdict::kConcurrencyBug || result.verdict == TestVerdict::kPlainFailure;
    errors |= result.verdict == TestVerdict::kError;
  }
  return failed ? kExitBug : errors ? kExitError : 0;
}

}  // namespace chess::cli::suite
