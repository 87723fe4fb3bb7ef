#include "cli/trace_recording.h"

#include "cli/report.h"

#include <sys/sysinfo.h>

#include <type_traits>

#ifndef CHESS_TRACE_VERSION
#define CHESS_TRACE_VERSION "unknown"
#endif

namespace chess::cli {

std::string ToolVersion() { return CHESS_TRACE_VERSION; }

trace::StandardInput ToTrace(const supervisor::CapturedInput& input) {
  return {static_cast<trace::StandardInput::Kind>(input.kind), input.bytes};
}

supervisor::CapturedInput FromTrace(const trace::StandardInput& input) {
  return {static_cast<supervisor::CapturedInput::Kind>(input.kind), input.bytes};
}
static_assert(trace::kLastInputKind == supervisor::kLastInputKind, "the trace names every kind of standard input");

namespace {

// The trace's record of the standard descriptors and the supervisor's have the same fields in
// the same order: each direction is this one copy.
template <typename To, typename From>
To CopyDescriptors(const From& descriptors) {
  To copied;
  for (size_t fd = 0; fd < descriptors.size(); ++fd) {
    const auto& from = descriptors[fd];
    using Kind = typename std::remove_reference_t<decltype(copied[fd])>::Kind;
    copied[fd] = {static_cast<Kind>(from.kind), from.same_file_as, from.same_description_as, from.rows, from.columns,
                  from.x_pixels, from.y_pixels, from.major, from.minor};
  }
  return copied;
}

}  // namespace

trace::StandardDescriptors ToTrace(const supervisor::StandardDescriptors& descriptors) {
  return CopyDescriptors<trace::StandardDescriptors>(descriptors);
}

supervisor::StandardDescriptors FromTrace(const trace::StandardDescriptors& descriptors) {
  return CopyDescriptors<supervisor::StandardDescriptors>(descriptors);
}
static_assert(trace::kLastDescriptorKind == supervisor::kLastDescriptorKind, "the trace names every kind of descriptor");

trace::Command TraceCommand(const ExecutionSettings& settings, const std::string& executable) {
  trace::Command command;
  command.path = executable;
  command.argv = settings.command;
  command.cwd = settings.cwd;
  command.env = settings.env;
  return command;
}

trace::Options TraceOptions(const ExecutionSettings& settings, uint64_t isolated, std::string strategy) {
  trace::Options options;
  options.strategy = std::move(strategy);
  options.seed = settings.seed;
  options.epoch = settings.epoch;
  options.isolation = isolated;
  options.slice_nanos = static_cast<uint64_t>(settings.slice_ms * 1e6);
  options.visible_cpus = static_cast<uint64_t>(get_nprocs());
  options.sync_points = settings.sync_points != SyncPoints::kSyscalls;
  options.io_points = settings.sync_points >= SyncPoints::kProcesses;
  options.atomic_points = settings.sync_points >= SyncPoints::kAtomics;
  options.race_points = settings.sync_points >= SyncPoints::kRaces;
  return options;
}

ExecutionSettings RecordedSettings(const trace::Trace& trace) {
  ExecutionSettings settings;
  settings.command = trace.command.argv;
  settings.env = trace.command.env;
  settings.cwd = trace.command.cwd;
  settings.slice_ms = static_cast<double>(trace.options.slice_nanos) / 1e6;
  settings.epoch = trace.options.epoch;
  settings.seed = trace.options.seed;
  settings.isolation = trace.options.isolation;
  settings.isolation_required = trace.options.isolation != 0;
  if (trace.standard_input) settings.input = FromTrace(*trace.standard_input);
  if (trace.options.atomic_points) {
    // With the sites the recording had: a replay stops at the same atomic instructions and racing
    // accesses (and a trace of a learning execution, without sites, learns again: it parked at
    // none).
    settings.sync_points = trace.options.race_points ? SyncPoints::kRaces : SyncPoints::kAtomics;
    settings.atomic_points = trace.atomic_points;
  } else if (trace.options.io_points) {
    settings.sync_points = SyncPoints::kProcesses;
  } else {
    settings.sync_points = trace.options.sync_points ? SyncPoints::kAuto : SyncPoints::kSyscalls;
  }
  return settings;
}

Result<void> TraceRecording::Open(const std::string& path, bool replace, const ExecutionSettings& settings,
                                  const PreparedExecution& execution) {
  if (auto opened = writer_.Open(path, replace, ToolVersion()); !opened) return opened;
  writer_.WriteCommand(TraceCommand(settings, execution.spec.path));
  writer_.WriteStandardInput(settings.input ? ToTrace(*settings.input) : trace::StandardInput{});
  return {};
}

supervisor::ExecutionResult TraceRecording::Run(const PreparedExecution& execution,
                                                supervisor::SupervisorOptions options) {
  options.log = &recorder_;
  // The sites a search learned, so that a replay parks at the same ones.
  if (options.atomic_points && options.atomic_points->mode == search::AtomicPointPlan::Mode::kPoints) {
    writer_.WriteAtomicSites(*options.atomic_points);
    if (!options.atomic_points->race_sites.empty()) writer_.WriteRaceSites(options.atomic_points->race_sites);
  }
  return Execute(execution, options, recorder_, &isolated_);
}

Result<void> TraceRecording::Finish(const supervisor::ExecutionResult& result, const ExecutionSettings& settings,
                                    const std::string& strategy) {
  writer_.WriteOptions(TraceOptions(settings, isolated_, strategy.empty() ? recorder_.Describe() : strategy));
  if (result.standard_descriptors) writer_.WriteStandardDescriptors(ToTrace(*result.standard_descriptors));
  if (oracle_) writer_.WriteOracle(*oracle_);
  trace::Outcome outcome;
  outcome.outcome = result.outcome;
  if (result.exit_status) outcome.exit_status = *result.exit_status;
  if (result.signal) outcome.signal = *result.signal;
  outcome.message = result.message;
  outcome.scheduling_points = result.scheduling_points;
  outcome.virtual_nanos = static_cast<int64_t>(result.virtual_seconds * 1e9);
  outcome.report = StuckExplanation(result) + ThreadStates(result);
  writer_.WriteOutcome(outcome);
  return writer_.Finish();
}

}  // namespace chess::cli
