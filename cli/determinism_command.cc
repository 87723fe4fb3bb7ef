#include "cli/determinism_command.h"

#include <sys/syscall.h>

#include <iostream>
#include <set>

#include "cli/exit_codes.h"
#include "cli/report.h"
#include "search/determinism_check.h"
#include "search/non_preemptive_strategy.h"
#include "search/recording_strategy.h"
#include "search/replay_strategy.h"
#include "seccomp/filter.h"
#include "supervisor/world/output_capture.h"

namespace chess::cli {
namespace {

// The comparison, plus the rdrand/rdseed sites of every process of the first run (looked for as
// each process ends, when everything it loaded is mapped).
class Observer final : public search::SyscallObserver {
 public:
  void BeginExecution() {
    check_.BeginExecution();
    ++execution_;
  }
  bool Observe(const search::SyscallEvent& event, const search::EventContext& context) override {
    if (execution_ == 1 && !event.exit && event.syscall == SYS_exit_group && context.untrappable_sites) {
      for (std::string& site : context.untrappable_sites()) sites_.insert(std::move(site));
    }
    // The files that capture each run's output are new every run (their inode, their times):
    // what the program learns of them is no cause.
    if (event.target.find(supervisor::kCapturedStdout) != std::string::npos ||
        event.target.find(supervisor::kCapturedStderr) != std::string::npos) {
      search::SyscallEvent marked = event;
      marked.incidental = true;
      return check_.Observe(marked, context);
    }
    return check_.Observe(event, context);
  }
  const search::DeterminismCheck& Check() const { return check_; }
  const std::set<std::string>& Sites() const { return sites_; }

 private:
  search::DeterminismCheck check_;
  int execution_ = 0;
  std::set<std::string> sites_;
};

std::string Outcome(const supervisor::ExecutionResult& result) {
  std::string text(search::OutcomeName(result.outcome));
  if (result.exit_status) text += ", exit status " + std::to_string(*result.exit_status);
  if (result.signal) text += ", " + SignalName(*result.signal);
  return text;
}

bool SameOutcome(const supervisor::ExecutionResult& a, const supervisor::ExecutionResult& b) {
  return a.outcome == b.outcome && a.exit_status == b.exit_status && a.signal == b.signal;
}

// Both sides of a difference: the first run's event and this run's.
std::string Sides(const search::Difference& difference, int run) {
  std::string text;
  text += "    run 1: " + (difference.expected ? search::DescribeEvent(*difference.expected) : "(it had ended)");
  if (difference.expected && !difference.expected_site.empty()) text += "  [called at " + difference.expected_site + "]";
  text += "\n    run " + std::to_string(run) + ": " + search::DescribeEvent(difference.found) + "\n";
  if (!difference.backtrace.empty()) {
    text += "    where run " + std::to_string(run) + " made it";
    if (difference.expected && difference.expected->ip == difference.found.ip) text += " (the same call site as run 1)";
    text += ":\n" + difference.backtrace;
  }
  return text;
}

std::string FirstDifferentLine(const std::string& a, const std::string& b) {
  size_t line = 1;
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) {
    if (a[at] == '\n') ++line;
    ++at;
  }
  return "line " + std::to_string(line);
}

}  // namespace

int CheckDeterminism(ExecutionSettings settings, int runs, Messages& messages) {
  search::SetSyscallNamer([](int64_t nr) { return seccomp::SyscallName(nr); });
  if (runs < 2) {
    messages.Say("--check-determinism " + std::to_string(runs) + ": give at least 2 runs to compare");
    return kExitError;
  }
  if (!CaptureInput(settings, messages)) return kExitError;
  settings.observe_all = true;
  auto prepared = PrepareExecution(settings, messages);
  if (auto* code = std::get_if<int>(&prepared)) return *code;
  PreparedExecution& execution = std::get<PreparedExecution>(prepared);
  Observer observer;
  execution.options.observer = &observer;

  search::NonPreemptiveStrategy natural;
  search::RecordingStrategy recording(natural);
  supervisor::ExecutionResult first;
  supervisor::CapturedOutput first_output;
  std::optional<std::string> verdict;  // what differed, for a person
  int differing_run = 0;
  for (int run = 1; run <= runs && !verdict; ++run) {
    messages.Say("run " + std::to_string(run) + " of " + std::to_string(runs) + "…");
    observer.BeginExecution();
    supervisor::OutputCapture capture;
    if (auto begun = capture.Begin(); !begun) {
      messages.Say(begun.error());
      return kExitError;
    }
    std::optional<search::ReplayStrategy> replay;
    if (run > 1) replay.emplace(recording.Decisions());
    search::Strategy& strategy = run == 1 ? static_cast<search::Strategy&>(recording) : *replay;
    const supervisor::ExecutionResult result = Execute(execution, execution.options, strategy);
    const supervisor::CapturedOutput output = capture.End();
    if (result.outcome == search::Outcome::kError || result.exec_errno) {
      messages.Say("run " + std::to_string(run) + " could not be made: " +
                   (result.exec_errno ? std::string("cannot execute the program") : result.message));
      return kExitError;
    }
    if (run == 1) {
      first = result;
      first_output = output;
      continue;
    }
    const search::DeterminismCheck& check = observer.Check();
    std::string text;
    if (const auto& behaviour = check.BehaviourDifference()) {
      text = "  the first thing it did differently (syscall event " + std::to_string(behaviour->position) + "):\n" +
             Sides(*behaviour, run);
    } else if (result.outcome == search::Outcome::kDivergence) {
      text = "  it could not follow run 1's schedule: " + result.message + "\n";
    } else if (auto early = check.EndedEarly()) {
      text = "  it ended after " + std::to_string(early->position) + " syscall events, run 1 made more; run 1's next:\n    " +
             search::DescribeEvent(*early->expected) + "\n";
    } else if (!SameOutcome(result, first)) {
      text = "  it ended with " + Outcome(result) + ", run 1 with " + Outcome(first) + "\n";
    } else if (output.out != first_output.out || output.err != first_output.err) {
      const bool out = output.out != first_output.out;
      text = std::string("  its ") + (out ? "stdout" : "stderr") + " differs from run 1's at " +
             (out ? FirstDifferentLine(first_output.out, output.out) : FirstDifferentLine(first_output.err, output.err)) +
             " (written without a syscall chess-trace saw: a memory-mapped file?)\n";
    } else {
      continue;
    }
    const std::optional<search::Difference>& cause =
        check.BehaviourDifference() ? check.LikelyCause() : check.LastValueDifference();
    if (cause) {
      const bool same_thread =
          check.BehaviourDifference() && cause->found.thread == check.BehaviourDifference()->found.thread;
      text += "  the likely cause, the last result that differed before it" +
              std::string(same_thread ? " in the same thread" : "") + " (syscall event " +
              std::to_string(cause->position) + "; " + std::to_string(check.ValueDifferences()) +
              std::string(check.ValueDifferences() == 1 ? " result" : " results") + " differed in all):\n" + Sides(*cause, run);
    } else {
      text += "  no syscall result differed before it: the difference came from outside the syscalls "
              "(an instruction such as rdrand, memory shared with a process outside the tree, a "
              "signal from outside)\n";
    }
    verdict = text;
    differing_run = run;
  }

  // The first run's output is the program's: shown once.
  std::cout << first_output.out << std::flush;
  std::cerr << first_output.err << std::flush;
  const search::DeterminismCheck& check = observer.Check();
  std::string sites;
  for (const std::string& site : observer.Sites()) sites += "    " + site + "\n";
  if (!sites.empty()) {
    sites = "  code that can read the CPU's random number generator (rdrand, rdseed), which chess-trace cannot "
            "control on this machine:\n" + sites;
  }
  if (verdict) {
    messages.Say("not deterministic: run " + std::to_string(differing_run) + " did something else than run 1, with "
                 "the same seed, input and schedule");
    messages.Raw(*verdict + sites);
    return 1;
  }
  std::string note;
  if (const auto& value = check.FirstValueDifference()) {
    note = "  (a result differed without changing what the program did: " + search::DescribeEvent(value->found) +
           ", run 1 got " + search::DescribeEvent(*value->expected) + ")\n";
  }
  messages.Say("deterministic: " + std::to_string(runs) + " runs made the same " + std::to_string(check.ReferenceEvents()) +
               " syscall observations" + (check.Truncated() ? " (compared as far as the first 4 million)" : "") +
               " and ended alike (" + Outcome(first) + ")");
  messages.Raw(note + sites);
  return 0;
}

}  // namespace chess::cli
