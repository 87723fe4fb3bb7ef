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
#include "cli/prediction_report.h"
#include "search/lock_watching_strategy.h"
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
  run->add_flag("--predict", options.predict,
                "After the run, list the deadlocks it predicts: the lock-order cycles its lock acquisitions show "
                "(a thread took B while it held A, another took A while it held B: iGoodlock, over cycles of any "
                "length, with cycles under a common gate lock ruled out), which another schedule could close — a "
                "lockdep for any program, for programs too large to search. Each is a warning with where each "
                "lock was held and asked for (`predicted` in --report), never a bug: `chess-trace explore` tries to "
                "make them happen. Locks are seen through the preload shim (pthread and C11 mutexes, rwlocks, spin "
                "locks): --sync-points is at least auto. The exit status stays the program's");
  return run;
}

int RunCommand(const RunOptions& options) {
  Messages messages;
  if (!messages.UseLog(options.program.log_path)) return kExitError;
  // A trace must replay: where a lock changes hands without a syscall, only a sync point can
  // tell the replay where a thread was.
  const bool needs_shim = !options.trace_path.empty() || options.predict;
  std::optional<ExecutionSettings> built =
      BuildSettings(options.program, "pid,uts,ipc,mnt", needs_shim ? SyncPoints::kAuto : SyncPoints::kSyscalls, messages);
  if (!built) return kExitError;
  ExecutionSettings settings = std::move(*built);
  if (options.predict && settings.sync_points < SyncPoints::kAuto) {
    messages.Say("--predict sees locks through the preload shim: it needs --sync-points auto or more, not syscalls");
    return kExitError;
  }
  if (options.predict && options.check_determinism != 0) {
    messages.Say("--predict and --check-determinism cannot be combined: predict from an ordinary run");
    return kExitError;
  }
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

  search::NonPreemptiveStrategy non_preemptive;
  search::LockWatchingStrategy watcher(non_preemptive);
  search::Strategy& strategy = options.predict ? static_cast<search::Strategy&>(watcher) : non_preemptive;
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
  std::optional<search::PredictionsResult> predictions;
  if (options.predict && !result.exec_errno && result.stopped_by_signal == 0) {
    predictions.emplace();
    predictions->watched = true;
    search::Predict(watcher.Take(), *predictions);
    predictions->untried = predictions->cycles.size();
    for (const supervisor::ProgramImage& image : result.images) {
      if (image.multithreaded && image.sync_ops == 0) predictions->blind.push_back(image.path);
    }
  }
  const auto predicted_json = [&](JsonWriter& json) { WritePredictionsJson(json, predictions ? &*predictions : nullptr); };
  bool ok = ReportExecution(result, execution.spec.path, "run", options.report_path, execution.options.atomic_points, messages,
                            options.predict ? predicted_json : std::function<void(JsonWriter&)>());
  // Said after the report, whose first line names the outcome.
  for (const std::string& line : PredictionLines(predictions ? &*predictions : nullptr, false)) messages.Say(line);
  if (predictions && !predictions->cycles.empty()) {
    messages.Say("hint: `chess-trace explore` tries to make each predicted deadlock happen (directed executions) and "
                 "saves a trace that replays the one it makes");
  }
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
