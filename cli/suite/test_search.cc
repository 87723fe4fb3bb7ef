#include "cli/suite/test_search.h"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/world/kept_namespace.h"

namespace chess::cli::suite {
namespace {

// How much longer than its budget a search may take before it is killed: its last execution
// runs to the end (at most --execution-timeout), then the trace is saved.
constexpr double kGraceSeconds = 30;
// The most of a search's text report kept.
constexpr size_t kMostReportBytes = size_t{4} << 20;

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// The text's line that starts (after its indentation) with `prefix`, without it; "" if none.
std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, prefix.size(), prefix) == 0) {
      return line.substr(first + prefix.size());
    }
    start = end + 1;
  }
  return {};
}

// The lines of the text report after "its output (the last lines):", as explore quoted them.
std::string OutputTail(const std::string& text) {
  const std::string marker = "its output (the last lines):\n";
  const size_t at = text.find(marker);
  if (at == std::string::npos) return {};
  std::string tail;
  size_t start = at + marker.size();
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind("    ", 0) != 0) break;  // the quotation is indented four spaces
    tail += line.substr(4) + "\n";
    start = end + 1;
  }
  return tail;
}

std::string Strip(std::string text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

}  // namespace

std::vector<std::string> ExploreCommandLine(const SearchSettings& settings, const TestCase& test_case,
                                            const std::string& out_dir, double seconds) {
  std::vector<std::string> argv = {settings.chess_trace, "explore", "--quiet", "--out", out_dir,
                                   "--report", out_dir + "/report.json",
                                   "--max-executions", std::to_string(settings.budget.executions),
                                   "--time-limit", Seconds(std::max(1.0, std::ceil(seconds)))};
  argv.insert(argv.end(), settings.explore_options.begin(), settings.explore_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), test_case.command.begin(), test_case.command.end());
  return argv;
}

TestResult SearchTest(const SearchSettings& settings, const TestCase& test_case, const std::string& out_dir,
                      double seconds) {
  const std::vector<std::string> argv = ExploreCommandLine(settings, test_case, out_dir, seconds);
  const std::string report_path = out_dir + "/report.json";
  unlink(report_path.c_str());
  const auto started = std::chrono::steady_clock::now();
  // Past its budget a search still ends its last execution and, for a bug, runs its schedule
  // again into the trace: each may take --execution-timeout, and with --check as long again.
  const double limit =
      seconds + (settings.budget.checks ? 4 : 2) * settings.budget.execution_timeout_seconds + kGraceSeconds;
  auto ran = supervisor::RunInside(
      nullptr, "",
      [&argv]() {
        std::vector<char*> words;
        for (const std::string& word : argv) words.push_back(const_cast<char*>(word.c_str()));
        words.push_back(nullptr);
        execv(words[0], words.data());
        return 127;
      },
      std::chrono::milliseconds(static_cast<int64_t>(limit * 1000)), kMostReportBytes,
      // Ctrl-C reaches `test` alone (the search has a process group of its own): the search is
      // told to stop, and saves what it has.
      [] { return supervisor::PendingStopSignal() != 0; });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  TestResult result;
  if (!ran) {
    result.name = test_case.name;
    result.verdict = TestVerdict::kError;
    result.message = "its search could not be started: " + ran.error();
  } else if (ran->timed_out) {
    result.name = test_case.name;
    result.verdict = TestVerdict::kError;
    result.message = "its search ran " + Seconds(std::round(limit)) + " s, past its budget, and was killed";
    result.report = ran->output;
  } else {
    std::ifstream file(report_path);
    std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::optional<JsonValue> report;
    if (auto parsed = JsonValue::Parse(json); parsed) report = std::move(*parsed);
    result = ResultFromReport(test_case, ran->status, report ? &*report : nullptr, ran->output,
                              settings.bounded_search, settings.budget);
  }
  result.seconds = took;
  result.out_dir = out_dir;
  return result;
}

TestResult ResultFromReport(const TestCase& test_case, int exit_status, const JsonValue* report,
                            const std::string& text, bool bounded_search, const TestBudget& budget) {
  TestResult result;
  result.name = test_case.name;
  result.report = text;
  if (report == nullptr) {
    result.verdict = TestVerdict::kError;
    const std::string said = Strip(FirstLine(text), "chess-trace: ");
    result.message = "its search ended with exit status " + std::to_string(exit_status) + " and no report" +
                     (said.empty() ? "" : ": " + said);
    return result;
  }
  result.executions = static_cast<uint64_t>(report->IntAt("executions").value_or(0));
  result.outcome = report->StringAt("outcome");
  result.message = report->StringAt("message");
  const JsonValue* coverage = report->Find("coverage");
  const std::string stopped_by = report->StringAt("stopped_by");
  if (result.outcome == "none") {
    // explore's coverage sentence (the text's first line may be a data race it reported first).
    result.coverage = result.message.empty() ? Strip(FirstLine(text), "chess-trace: ") : result.message;
    const bool complete = coverage != nullptr && coverage->Find("complete") != nullptr &&
                          coverage->Find("complete")->Bool();
    // A bounded search that stopped at its budget did not cover its bound: not a pass.
    if (bounded_search && !complete && (stopped_by == "max-executions" || stopped_by == "time-limit")) {
      result.verdict = TestVerdict::kSkipped;
      result.skip_reason = "its budget ran out before its bound was covered: " + std::to_string(result.executions) +
                           " executions" +
                           (stopped_by == "max-executions"
                                ? " (--per-test-executions " + std::to_string(budget.executions) + ")"
                                : " in --per-test-time " + Seconds(budget.seconds) + " s") +
                           "; " + result.coverage;
      return result;
    }
    result.verdict = TestVerdict::kPassed;
    return result;
  }
  if (exit_status != 1 || result.outcome == "error" || result.outcome == "unsupported") {
    result.verdict = TestVerdict::kError;
    if (result.message.empty()) result.message = Strip(FirstLine(text), "chess-trace: ");
    return result;
  }
  result.preemptions = report->IntAt("preemptions");
  result.trace_path = report->StringAt("trace");
  result.replay_command = report->StringAt("replay_command");
  result.output = OutputTail(text);
  result.coverage = LineStartingWith(text, "searched: ");
  // The first execution of a bounded search is the non-preemptive schedule: a test that fails
  // there fails whatever the schedule — a plain failure, not a concurrency bug.
  const bool first_schedule = report->IntAt("execution") == 1 && result.preemptions == 0;
  result.verdict = bounded_search && first_schedule ? TestVerdict::kPlainFailure : TestVerdict::kConcurrencyBug;
  return result;
}

std::string SafeName(const std::string& name, std::vector<std::string>& taken) {
  std::string safe;
  for (char c : name) {
    const bool kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    safe += kept ? c : '_';
  }
  if (safe.empty()) safe = "_";
  if (safe.front() == '.') safe.front() = '_';
  if (safe.size() > 120) safe.resize(120);
  std::string unique = safe;
  for (int n = 2; std::find(taken.begin(), taken.end(), unique) != taken.end(); ++n) {
    unique = safe + "-" + std::to_string(n);
  }
  taken.push_back(unique);
  return unique;
}

}  // namespace chess::cli::suite
