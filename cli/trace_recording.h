// `run --trace FILE`: the execution's command, options, schedule, inputs and outcome, written
// to a trace as the run goes.
#pragma once

#include <string>

#include "cli/execution.h"
#include "search/result.h"
#include "trace/recorder.h"
#include "trace/trace_writer.h"

namespace chess::cli {

class TraceRecording {
 public:
  explicit TraceRecording(search::Strategy& strategy) : recorder_(strategy, writer_) {}

  // Opens the trace and writes the command; the execution then reports its inputs to it.
  Result<void> Open(const std::string& path, bool replace, const ExecutionSettings& settings,
                    PreparedExecution& execution);
  // The strategy the supervisor must use: the real one, every decision written down.
  search::Strategy& Strategy() { return recorder_; }
  // Writes the options (with the namespaces the run really had) and the outcome, and puts the
  // file in place.
  // `strategy`: the name the trace gives the strategy that made the schedule (default: the
  // strategy's own).
  Result<void> Finish(const supervisor::ExecutionResult& result, const ExecutionSettings& settings,
                      uint64_t isolated, const std::string& strategy = {});
  // The variables the execution's sync operations worked on, as the trace names them.
  const trace::ObjectNames& ObjectNames() const { return recorder_.Names(); }

 private:
  trace::TraceWriter writer_;
  trace::TraceRecorder recorder_;
};

// Standard input and the standard descriptors as a trace holds them, and back.
trace::StandardInput ToTrace(const supervisor::CapturedInput& input);
supervisor::CapturedInput FromTrace(const trace::StandardInput& input);
trace::StandardDescriptors ToTrace(const supervisor::StandardDescriptors& descriptors);
supervisor::StandardDescriptors FromTrace(const trace::StandardDescriptors& descriptors);

// The tool version written into traces and compared when reading them.
std::string ToolVersion();

}  // namespace chess::cli
