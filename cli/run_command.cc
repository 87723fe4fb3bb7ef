#include "cli/run_command.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "cli/atomic_point_learning.h"
#include "cli/command_line.h"
#include "cli/determinism_command.h"
#include "cli/execution.h"
#include "cli/program_options.h"
#include "cli/race_points.h"
#include "cli/trace_recording.h"
#include "cli/exit_codes.h"
#include "cli/messages.h"
#include "cli/refusals.h"
#include "cli/report.h"
#include "search/non_preemptive_strategy.h"
#include "seccomp/filter.h"
#include "seccomp/syscall_table.h"
#include "supervisor/clock.h"
#include "supervisor/supervisor.h"

namespace chess::cli {

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Run PROGRAM once with all of its threads serialized (one runs at a time, each until it "
      "blocks, yields or exits). Its stdin, stdout and stderr are its own; the exit status is "
      "the program's, 128+N if signal N killed it, 124 on a deadlock or hang.");
  AddProgramOptions(*run, options.program,
                    {"pid,uts,ipc,mnt", "all four where the kernel allows them", "auto with --trace, syscalls otherwise"});
  run->add_option("--report", options.report_path, "Write a JSON report (schema 2) to FILE")
      ->type_name("FILE");
  run->add_option("--trace", options.trace_path,
                  "Record the execution in FILE (a zstd file: `zstd -dc FILE` gives its records): `chess-trace replay FILE` runs it "
                  "again exactly, `chess-trace show FILE` draws its schedule")
      ->type_name("FILE");
  run->add_flag("--force", options.force, "Replace the --trace file if it exists");
  run->add_option("--check-determinism", options.check_determinism,
                  "Run the program N times (N >= 2) with the same seed, standard input and schedule, "
                  "compare every syscall and every result, and name the first difference: the "
                  "syscall, both values, the stack — and the likely cause before it (a /proc file, a "
                  "call chess-trace does not control), plus any rdrand/rdseed in the program's code. "
                  "Exits 0 when all runs did the same, 1 otherwise. Each run's output is captured; "
                  "the first one's is shown")
      ->type_name("N")
      ->check(WholeNumber(2, 1000));
  return run;
}

int RunCommand(const RunOptions& options) {
  Messages messages;
  if (!messages.UseLog(options.program.log_path)) return kExitError;
  // A trace must replay: where a lock changes hands without a syscall, only a sync point can
  // tell the replay where a thread was.
  std::optional<ExecutionSettings> built =
      BuildSettings(options.program, "pid,uts,ipc,mnt", options.trace_path.empty() ? SyncPoints::kSyscalls : SyncPoints::kAuto, messages);
  if (!built) return kExitError;
  ExecutionSettings settings = std::move(*built);
  for (const auto& [option, path] : {std::pair{"--report", options.report_path}, std::pair{"--trace", options.trace_path}}) {
    if (path.empty()) continue;
    if (auto checked = CheckFileDestination(option, path); !checked) {
      messages.Say(checked.error());
      return kExitError;
    }
  }

  if (options.check_determinism != 0) {
    if (!options.trace_path.empty()) {
      messages.Say("--check-determinism and --trace cannot be combined: record a run with --trace on its own");
      return kExitError;
    }
    return CheckDeterminism(std::move(settings), options.check_determinism, messages);
  }
  if (!options.trace_path.empty()) {
    // Recorded so that a replay reads the same bytes.
    if (!CaptureInput(settings, messages)) return kExitError;
  }

  auto prepared = PrepareExecution(settings, messages);
  if (auto* code = std::get_if<int>(&prepared)) return *code;
  PreparedExecution& execution = std::get<PreparedExecution>(prepared);

  search::NonPreemptiveStrategy strategy;
  std::optional<TraceRecording> recording;
  if (!options.trace_path.empty()) {
    recording.emplace(strategy);
    if (auto opened = recording->Open(options.trace_path, options.force, settings, execution); !opened) {
      messages.Say(opened.error());
      return kExitError;
    }
  }
  supervisor::ExecutionResult result =
      recording ? recording->Run(execution, execution.options) : Execute(execution, execution.options, strategy);
  result.outcome = RefusalJudge().Judge(result, result.outcome, &result.message);
  bool ok = ReportExecution(result, execution.spec.path, "run", options.report_path, execution.options.atomic_points, messages);
  if (settings.sync_points >= SyncPoints::kAtomics && result.stopped_by_signal == 0) {
    // A run learns the atomic points and parks at none: what it saw is what explore would search.
    // Said after the report, whose first line names the outcome.
    AtomicPointLearning learned(0, settings.sync_points);
    learned.Learned(result.atomics, result.outcome);
    messages.Say(learned.Sentence());
    for (const search::ObservedRace& race : learned.Races()) messages.Say(RaceLine(race));
  }
  if (recording) {
    if (auto finished = recording->Finish(result, settings); !finished) {
      messages.Say(finished.error());
      ok = false;
    }
  }
  return ok ? RunExitCode(result) : kExitError;
}

}  // namespace chess::cli
