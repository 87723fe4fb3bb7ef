#include "cli/oracle_judge.h"

#include <unistd.h>

#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/world/kept_namespace.h"
#include "trace/format.h"

extern char** environ;

namespace chess::cli {
namespace {

// The most of a file --same-output compares (a trace keeps the reference's bytes).
constexpr size_t kMostFileBytes = trace::kMaxRecordString;

}  // namespace

void OracleJudge::Inspect(supervisor::ExecutionResult& result, const supervisor::KeptMountNamespace* space) const {
  supervisor::LeftBehind& left = result.left_behind;
  std::vector<std::string> paths = output_files_;
  if (!same_output_) {
    for (const search::ExpectedFile& file : oracle_.Spec().expected_files) paths.push_back(file.path);
  }
  if (!paths.empty()) {
    auto read = supervisor::ReadFilesInside(space, world_.cwd, paths, kMostFileBytes + 1);
    if (!read) {
      left.error = "--output-file: " + read.error();
      return;
    }
    left.files = std::move(*read);
  }
  // --check, after an execution that exited as it should (a crash says more than a check would).
  const bool exited_as_expected = (result.outcome == search::Outcome::kOk ||
                                   result.outcome == search::Outcome::kExitStatus) &&
                                  result.exit_status == world_.expect_exit;
  if (oracle_.Spec().check_command && exited_as_expected) {
    auto ran = supervisor::RunCommandInside(space, world_.cwd, *oracle_.Spec().check_command,
                                            world_.check_env, world_.check_timeout,
                                            [] { return supervisor::PendingStopSignal() != 0; });
    if (!ran) {
      left.error = "--check could not run: " + ran.error();
      return;
    }
    left.check = std::move(*ran);
  }
}

search::Outcome OracleJudge::Judge(search::Outcome judged, const supervisor::ExecutionResult& result,
                                   const supervisor::CapturedOutput& output, std::string* message) const {
  if (judged != search::Outcome::kOk || !Any()) return judged;
  const supervisor::LeftBehind& left = result.left_behind;
  if (!left.error.empty()) {
    if (message) *message = left.error;
    return search::Outcome::kError;
  }
  if (std::optional<std::string> verdict = oracle_.Judge(output.out, output.err, left.files)) {
    if (message) *message = std::move(*verdict);
    return search::Outcome::kWrongOutput;
  }
  if (oracle_.Spec().check_command) {
    if (!left.check) {
      if (message) *message = "--check did not run";
      return search::Outcome::kError;
    }
    if (std::optional<std::string> verdict = oracle_.JudgeCheck(left.check->status, left.check->timed_out,
                                                               left.check->output)) {
      if (message) *message = std::move(*verdict);
      return search::Outcome::kCheckFailed;
    }
  }
  return judged;
}

Result<void> OracleJudge::TakeReference(const supervisor::ExecutionResult& result,
                                        const supervisor::CapturedOutput& output) {
  search::OutputOracleSpec spec = oracle_.Spec();
  if (output.out.size() > trace::kMaxRecordString) {
    return Error{"--same-output: the reference execution wrote " + std::to_string(output.out.size()) +
                 " bytes to stdout, more than the 1 MiB a trace can keep"};
  }
  spec.expected_stdout = output.out;
  spec.expected_stdout_name = "the non-preemptive execution's stdout";
  const supervisor::LeftBehind& left = result.left_behind;
  if (!left.error.empty()) return Error{left.error};
  if (left.files.size() != output_files_.size()) return Error{"--output-file: the files were not read"};
  for (size_t i = 0; i < output_files_.size(); ++i) {
    if (left.files[i] && left.files[i]->size() > kMostFileBytes) {
      return Error{"--output-file " + output_files_[i] + ": the reference execution wrote more than the 1 MiB a "
                   "trace can keep"};
    }
    spec.expected_files.push_back({output_files_[i], left.files[i]});
  }
  auto made = search::OutputOracle::Make(std::move(spec));
  if (!made) return Error{made.error()};
  oracle_ = std::move(*made);
  return {};
}

std::vector<std::string> OwnEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  return env;
}

}  // namespace chess::cli
