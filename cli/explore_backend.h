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
#include "cli/oracle_judge.h"
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
  // `expect_exit`: the root's exit status that means success (--expect-exit); `judge`: what an
  // execution that exits so must (not) have written or left (docs/oracles.md).
  SupervisorBackend(PreparedExecution& execution, int expect_exit, OracleJudge judge = {})
      : execution_(execution), expect_exit_(expect_exit), judge_(std::move(judge)) {}

  search::ExecutionSummary Execute(search::Strategy& strategy) override;
  // With -j: where the bounded search's branches run (the worker pool); null: here.
  void RunBranchesOn(search::BranchRunner* runner) { runner_ = runner; }
  // While it watches locks (prediction's first execution), executions run here.
  search::BranchRunner* Branches() override { return watch_locks_ ? nullptr : runner_; }
  // Not with a runner that logs every execution in order (--checkpoint): the first one must be
  // among them. With -j's worker pool it runs here, in the search's own world.
  bool WatchLocks(bool on) override;
  void RunnerLogsEveryExecution(bool logs) { runner_logs_ = logs; }
  // A worker's side: what the last execution showed of the program, for the tallies below, as
  // bytes for the search's backend. The search's side: an execution a worker ran is counted
  // here when the search takes it in (Absorb), as if it had run here.
  std::string TakeObservation();
  void Absorb(const std::string& observed);

  // The outcome as --expect-exit reads it; `unsupported` for a failure after a refused call the
  // search has not seen the program survive (then `*message` says so).
  search::Outcome Judge(const supervisor::ExecutionResult& result, std::string* message = nullptr) const;
  // Judge, and then an `ok` execution by the oracles: `wrong-output` or `check-failed` when one
  // rejects it (then `*message` quotes the lines).
  search::Outcome JudgeWithOracles(const supervisor::ExecutionResult& result, const supervisor::CapturedOutput& output,
                                   std::string* message = nullptr) const;
  const OracleJudge& Oracles() const { return judge_; }
  // --same-output's reference. The search's first execution gives it when that is the
  // non-preemptive one (pb); otherwise RunReference runs one, uncounted, first. The error says
  // why there is none (the non-preemptive execution fails, or its files cannot be read).
  void ReferenceFromFirstExecution() { reference_from_first_ = true; }
  Result<void> RunReference();
  const std::string& ReferenceProblem() const { return reference_problem_; }
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
  OracleJudge judge_;
  bool reference_from_first_ = false;
  std::string reference_problem_;  // why --same-output has no reference
  RefusalJudge refusals_;
  VisibilityTally visibility_;
  uint64_t executions_ = 0;
  uint64_t forked_ = 0;
  uint64_t isolated_ = 0;
  std::string setup_error_;
  std::optional<InterruptedRun> interrupted_;
  supervisor::OutputCapture capture_;
  search::BranchRunner* runner_ = nullptr;
  bool watch_locks_ = false;
  bool runner_logs_ = false;
  // The last execution's contribution to the tallies (TakeObservation).
  std::vector<supervisor::ProgramImage> last_images_;
  search::AtomicPointCount last_atomics_;
  bool last_forked_ = false;
};

// What makes two failing executions the same bug: the outcome, the status or signal, and every
// thread's state with the functions at the top of its stack.
std::string BugSignature(const supervisor::ExecutionResult& result, search::Outcome outcome);

// The last `lines` lines of the captured output, each prefixed with the stream it came from.
std::string OutputTail(const supervisor::CapturedOutput& output, size_t lines);

}  // namespace chess::cli
