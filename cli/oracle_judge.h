// OracleJudge: the oracles beyond the exit status (docs/oracles.md) applied to one execution that
// ended as --expect-exit says — its stdout and stderr (--fail-on-output, --expect-stdout), the
// files it left (--same-output --output-file, read inside its mount namespace) and the user's
// --check command (run natively inside it). The one rule for explore's executions, the trace of
// a bug, and a replay of that trace.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "search/outcome.h"
#include "search/output_oracle.h"
#include "search/result.h"
#include "supervisor/execution_result.h"
#include "supervisor/world/output_capture.h"

namespace chess::cli {

// Where the oracles that look at the execution's world do it.
struct OracleWorld {
  std::string cwd;                       // the program's working directory (absolute)
  std::vector<std::string> check_env;    // --check's environment: chess-trace's own
  std::chrono::milliseconds check_timeout{60'000};
  int expect_exit = 0;  // --check runs only after an execution that exits so
};

class OracleJudge {
 public:
  OracleJudge() = default;  // judges nothing
  // `output_files`: --same-output's files, whose contents the reference execution gives.
  OracleJudge(search::OutputOracle oracle, OracleWorld world, bool same_output, std::vector<std::string> output_files)
      : oracle_(std::move(oracle)), world_(std::move(world)), same_output_(same_output),
        output_files_(std::move(output_files)) {}

  // `judged` as the exit status had it: an `ok` execution becomes `wrong-output` or
  // `check-failed` (then `*message` says why, quoting lines) when an oracle rejects it, or
  // `error` when an oracle could not look. Anything else stays as it was: a crash or a deadlock
  // says more than the output.
  search::Outcome Judge(search::Outcome judged, const supervisor::ExecutionResult& result,
                        const supervisor::CapturedOutput& output, std::string* message) const;

  // --same-output: whether the expectations still wait for the reference execution, and taking
  // them from it (its stdout and the files it left). The error says why they could not be taken.
  bool AwaitingReference() const { return same_output_ && !oracle_.Spec().expected_stdout; }
  Result<void> TakeReference(const supervisor::ExecutionResult& result, const supervisor::CapturedOutput& output);

  // Whether judging looks at what the execution left in its world (files to read, a command to
  // run), and doing that: the supervisor calls Inspect (SupervisorOptions::inspect_world) once
  // the tree is gone, before the world is made ready for the next execution; Judge then reads
  // result.left_behind. The judge must outlive the executions it inspects.
  bool LooksAtTheWorld() const {
    return same_output_ || !oracle_.Spec().expected_files.empty() || oracle_.Spec().check_command.has_value();
  }
  void Inspect(supervisor::ExecutionResult& result, const supervisor::KeptMountNamespace* space) const;
  std::function<void(supervisor::ExecutionResult&, const supervisor::KeptMountNamespace*)> Inspector() const {
    if (!LooksAtTheWorld()) return {};
    return [this](supervisor::ExecutionResult& result, const supervisor::KeptMountNamespace* space) {
      Inspect(result, space);
    };
  }
  bool Any() const { return same_output_ || oracle_.Spec().Any(); }
  const search::OutputOracle& Oracle() const { return oracle_; }

 private:
  search::OutputOracle oracle_;
  OracleWorld world_;
  bool same_output_ = false;
  std::vector<std::string> output_files_;
};

// chess-trace's own environment, as --check's command gets it.
std::vector<std::string> OwnEnvironment();

}  // namespace chess::cli
