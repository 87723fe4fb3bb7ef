// Recording an execution: its command, options, schedule, inputs and outcome, written to a trace
// as it runs (`run --trace FILE`, and the traces explore saves of its bugs and of the execution
// a Ctrl-C cut short).
#pragma once

#include <optional>
#include <string>

#include "cli/execution.h"
#include "search/result.h"
#include "trace/format.h"
#include "trace/recorder.h"
#include "trace/trace_writer.h"

namespace chess::cli {

// One execution, `strategy` deciding, written to a trace: Open, Run, Finish.
class TraceRecording {
 public:
  explicit TraceRecording(search::Strategy& strategy) : recorder_(strategy, writer_) {}

  // Opens the trace at `path` (`replace`: even when the file exists) and writes the command and
  // standard input.
  Result<void> Open(const std::string& path, bool replace, const ExecutionSettings& settings,
                    const PreparedExecution& execution);
  // Runs the execution with `options` — the prepared ones, or a copy that asks more of them —
  // every decision and input from outside written down as it is made (and first, the atomic
  // sites of a kPoints plan).
  supervisor::ExecutionResult Run(const PreparedExecution& execution, supervisor::SupervisorOptions options);
  // Writes the options (with the namespaces the run really had) and the outcome, and puts the
  // file in place. `strategy`: the name the trace gives the strategy that made the schedule
  // (default: the strategy's own).
  Result<void> Finish(const supervisor::ExecutionResult& result, const ExecutionSettings& settings,
                      const std::string& strategy = {});
  // The oracle the execution's output is judged by, written by Finish (an oracle record) so that
  // `replay` judges the same way.
  void SetOracle(trace::Oracle oracle) { oracle_ = std::move(oracle); }
  // The variables the execution's sync operations worked on, as the trace names them.
  const trace::ObjectNames& ObjectNames() const { return recorder_.Names(); }

 private:
  trace::TraceWriter writer_;
  trace::TraceRecorder recorder_;
  uint64_t isolated_ = 0;  // the --isolate word the run really had
  std::optional<trace::Oracle> oracle_;
};

// What a trace keeps of the settings, and the settings a trace gives back: the one mapping
// between them, so that what is recorded is what `replay` runs. The command goes first, with
// `executable` as it was resolved; the options once the run is over: `isolated`, the namespaces
// it really had, and `strategy`, the name of the strategy that made the schedule.
trace::Command TraceCommand(const ExecutionSettings& settings, const std::string& executable);
trace::Options TraceOptions(const ExecutionSettings& settings, uint64_t isolated, std::string strategy);
// The recorded command, environment, working directory, seed, epoch, slice, isolation, standard
// input, sync points and the atomic sites a search parked at.
ExecutionSettings RecordedSettings(const trace::Trace& trace);

// Standard input and the standard descriptors as a trace holds them, and back.
trace::StandardInput ToTrace(const supervisor::CapturedInput& input);
supervisor::CapturedInput FromTrace(const trace::StandardInput& input);
trace::StandardDescriptors ToTrace(const supervisor::StandardDescriptors& descriptors);
supervisor::StandardDescriptors FromTrace(const trace::StandardDescriptors& descriptors);

// The tool version written into traces and compared when reading them.
std::string ToolVersion();

}  // namespace chess::cli
