// SupervisorBackend: the Explorer's executions, run by the supervisor. Every execution starts
// from the same world — the same stdin bytes, environment and seed, a private /tmp when asked —
// and its output is captured, not shown; a failing execution's summary carries what a report of
// its bug needs (the result and the output's tail: a BugRun).
#pragma once

#include <optional>
#include <string>

#include "cli/execution.h"
#include "cli/refusals.h"
#include "cli/visibility.h"
#include "search/explorer.h"
#include "search/output_oracle.h"
#include "search/recording_strategy.h"
#include "supervisor/world/output_capture.h"

namespace chess::cli {

struct BugRun {
  supervisor::ExecutionResult result;
  std::string output_tail;  // the last lines of stdout and stderr, marked by stream
};

// The BugRun a failing execution's summary carries, taken out of it; empty when it carries none.
BugRun TakeBugRun(search::ExecutionSummary& summary);

class SupervisorBackend final : public search::ExecutionBackend {
 public:
  // `expect_exit`: the root's exit status that means success (--expect-exit); `oracle`: what an
  // execution that exits so must (not) have written (--fail-on-output, --expect-stdout).
  SupervisorBackend(PreparedExecution& execution, int expect_exit, search::OutputOracle oracle = {})
      : execution_(execution), expect_exit_(expect_exit), oracle_(std::move(oracle)) {}

  search::ExecutionSummary Execute(search::Strategy& strategy) override;

  // The outcome as --expect-exit reads it; `unsupported` for a failure after a refused call the
  // search has not seen the program survive (then `*message` says so).
  search::Outcome Judge(const supervisor::ExecutionResult& result, std::string* message = nullptr) const;
  // Judge, and then an `ok` execution's output by the oracle: `wrong-output` when it fails it
  // (then `*message` quotes the lines).
  search::Outcome JudgeWithOutput(const supervisor::ExecutionResult& result, const supervisor::CapturedOutput& output,
                                  std::string* message = nullptr) const;
  const search::OutputOracle& Oracle() const { return oracle_; }
  // The execution a stop signal (Ctrl-C) cut short: its number and the decisions it had taken.
  struct InterruptedRun {
    uint64_t execution = 0;
    std::vector<search::RecordedDecision> decisions;
    std::string strategy;
  };
  const std::optional<InterruptedRun>& Interrupted() const { return interrupted_; }
  // What the executions so far let the search see of each program.
  const VisibilityTally& Visibility() const { return visibility_; }
  // The atomic points every execution has (--sync-points atomics), as they were learned.
  void UseAtomicPoints(const AtomicPointsSeen& learned) { visibility_.UseAtomicPoints(learned); }
  // How many executions were forked from a fork server's template.
  uint64_t Forked() const { return forked_; }
  // The --isolate word the last execution really had (CLONE_NEW* flags, kPrivateTmp…).
  uint64_t Isolated() const { return isolated_; }
  // Why executions cannot be run at all (the capture failed), if so.
  const std::string& SetupError() const { return setup_error_; }
  // Gives chess-trace its stdout and stderr back (the search is over).
  void EndCapture() {
    if (capture_.Active()) (void)capture_.End(0);
  }

 private:
  PreparedExecution& execution_;
  int expect_exit_;
  search::OutputOracle oracle_;
  RefusalJudge refusals_;
  VisibilityTally visibility_;
  uint64_t executions_ = 0;
  uint64_t forked_ = 0;
  uint64_t isolated_ = 0;
  std::string setup_error_;
  std::optional<InterruptedRun> interrupted_;
  supervisor::OutputCapture capture_;
};

// What makes two failing executions the same bug: the outcome, the status or signal, and every
// thread's state with the functions at the top of its stack.
std::string BugSignature(const supervisor::ExecutionResult& result, search::Outcome outcome);

// How `oracle` judges an execution that ended `judged`: `wrong-output` (with `*message` quoting
// the lines) when it ended `ok` and its output fails the oracle; `judged` otherwise. The one rule
// for explore's executions and for a replay of their traces.
search::Outcome JudgeOutput(const search::OutputOracle& oracle, search::Outcome judged,
                            const supervisor::CapturedOutput& output, std::string* message);

// The last `lines` lines of the captured output, each prefixed with the stream it came from.
std::string OutputTail(const supervisor::CapturedOutput& output, size_t lines);

}  // namespace chess::cli
