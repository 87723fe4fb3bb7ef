#include "cli/run_command.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "cli/determinism_command.h"
#include "cli/execution.h"
#include "cli/trace_recording.h"
#include "cli/exit_codes.h"
#include "cli/messages.h"
#include "cli/report.h"
#include "search/non_preemptive_strategy.h"
#include "seccomp/filter.h"
#include "seccomp/syscall_table.h"
#include "supervisor/clock.h"
#include "supervisor/supervisor.h"

extern char** environ;

namespace chess::cli {
namespace {

// --seed: a whole number from 0 to 2^64-1.
std::optional<uint64_t> ParseSeed(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;  // more than 2^64-1
  }
}

// --epoch: nanoseconds since 1970 for "now", a number of seconds, or the default date.
std::optional<int64_t> ParseEpoch(const std::string& text) {
  if (text == "now") {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  }
  if (text == "2024-01-01") return int64_t{1'704'067'200} * 1'000'000'000;
  size_t used = 0;
  long long seconds = 0;
  try {
    seconds = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // Up to year 2262, where nanoseconds since 1970 overflow 64 bits.
  if (used != text.size() || seconds < 0 || seconds > 9'000'000'000LL) return std::nullopt;
  return static_cast<int64_t>(seconds) * 1'000'000'000;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Run PROGRAM once with all of its threads serialized (one runs at a time, each until it "
      "blocks, yields or exits). Its stdin, stdout and stderr are its own; the exit status is "
      "the program's, 128+N if signal N killed it, 124 on a deadlock or hang.");
  run->add_option("--cpu", options.cpu,
                  "Run the supervisor and the program on this CPU (default: one of the allowed "
                  "CPUs; the program still sees the whole CPU mask)");
  run->add_flag("--no-pin", options.no_pin, "Do not pin to one CPU (slower ptrace round trips)");
  run->add_option("--report", options.report_path, "Write a JSON report (schema 1) to FILE")
      ->type_name("FILE");
  run->add_option("--log", options.log_path, "Write chess-trace's own messages to FILE instead of stderr")
      ->type_name("FILE");
  run->add_option("--trace", options.trace_path,
                  "Record the execution in FILE (zstd-compressed): `chess-trace replay FILE` runs it "
                  "again exactly, `chess-trace show FILE` draws its schedule")
      ->type_name("FILE");
  run->add_flag("--force", options.force, "Replace the --trace file if it exists");
  run->add_option("--external-wait", options.external_wait_seconds,
                  "End the run as `hang` (exit 124) when every thread has waited only on the "
                  "outside world (a terminal, a socket to another program) for S seconds; by "
                  "default such waits last as long as they would without chess-trace")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  run->add_option("--slice", options.slice_ms,
                  "Interrupt a thread that has run this many milliseconds without blocking or "
                  "yielding, when another thread could run")
      ->type_name("MS")
      ->check(CLI::Range(0.1, 10000.0))
      ->capture_default_str();
  run->add_option("--max-processes", options.max_processes,
                  "Stop the run (exit 125) when the program tries to have more than N processes "
                  "at once, so a fork bomb stops and not the machine")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--seed", options.seed,
                  "Seed of everything random the program reads: getrandom, /dev/urandom, the "
                  "stack canary. The same seed (and schedule) gives the same run")
      ->type_name("N")
      ->capture_default_str();
  run->add_option("--epoch", options.epoch,
                  "What the program's CLOCK_REALTIME says when it starts: seconds since 1970, or "
                  "`now`. Time is virtual: it moves as the program runs, and sleeps cost no wall "
                  "time (default: 2024-01-01 00:00:00 UTC)")
      ->type_name("now|SECONDS");
  run->add_option("--isolate", options.isolate,
                  "Namespaces the program's tree runs in, so its pids, tids and hostname are the "
                  "same every run: a comma-separated list of pid, uts, ipc, mnt, or none (default: "
                  "all four where the kernel allows them; given explicitly, a refusal is an error). "
                  "`tmp` adds a fresh, empty /tmp of the tree's own (a tmpfs, gone after the run)")
      ->type_name("LIST");
  run->add_flag("--real-time", options.real_time,
                "Let the program read the machine's clocks, rdtsc included, and sleep in real time "
                "(for programs that talk to the outside world against real timeouts)");
  run->add_option("--sync-points", options.sync_points,
                  "Where threads may be switched besides trapped syscalls: `syscalls` (only there), or "
                  "`auto`: also at every pthread and C11 lock, condition variable, barrier, semaphore and "
                  "once operation of a dynamically linked program, announced by a preloaded shim "
                  "(libchess_preload.so; the program's own LD_PRELOAD stays). More points, a slower run, "
                  "and a trace whose replay holds even where locks change hands without a syscall "
                  "(default: auto with --trace, syscalls otherwise)")
      ->check(CLI::IsMember({"auto", "syscalls"}))
      ->type_name("auto|syscalls");
  run->add_option("--check-determinism", options.check_determinism,
                  "Run the program N times (N >= 2) with the same seed, standard input and schedule, "
                  "compare every syscall and every result, and name the first difference: the "
                  "syscall, both values, the stack — and the likely cause before it (a /proc file, a "
                  "call chess-trace does not control), plus any rdrand/rdseed in the program's code. "
                  "Exits 0 when all runs did the same, 1 otherwise. Each run's output is captured; "
                  "the first one's is shown")
      ->type_name("N")
      ->check(CLI::Range(2, 1000));
  run->add_option("command", options.command,
                  "PROGRAM [ARGS...]; put -- before it when its arguments start with a dash")
      ->type_name("PROGRAM [ARGS...]");
  return run;
}

int RunCommand(const RunOptions& options) {
  Messages messages;
  if (!messages.UseLog(options.log_path)) return kExitError;
  const std::optional<uint64_t> seed = ParseSeed(options.seed);
  if (!seed) {
    messages.Say("--seed " + options.seed + ": expected a whole number from 0 to 18446744073709551615");
    return kExitError;
  }
  const std::optional<int64_t> epoch = ParseEpoch(options.epoch);
  if (!epoch) {
    messages.Say("--epoch " + options.epoch + ": expected `now` or a number of seconds since 1970 "
                 "(0 to 9000000000)");
    return kExitError;
  }
  auto isolation = supervisor::ParseIsolation(options.isolate.value_or("pid,uts,ipc,mnt"));
  if (!isolation) {
    messages.Say(isolation.error());
    return kExitError;
  }
  ExecutionSettings settings;
  settings.command = options.command;
  for (char** variable = environ; *variable != nullptr; ++variable) settings.env.emplace_back(*variable);
  settings.cwd = CurrentDirectory();
  settings.cpu = options.cpu;
  settings.no_pin = options.no_pin;
  settings.slice_ms = options.slice_ms;
  settings.external_wait_seconds = options.external_wait_seconds;
  settings.max_processes = options.max_processes;
  if (!options.real_time) settings.epoch = *epoch;
  settings.seed = *seed;
  settings.isolation = *isolation;
  settings.isolation_required = options.isolate.has_value();
  // A trace must replay: where a lock changes hands without a syscall, only a sync point can
  // tell the replay where a thread was.
  settings.sync_points = options.sync_points.value_or(options.trace_path.empty() ? "syscalls" : "auto") == "auto";

  if (options.check_determinism != 0) {
    if (!options.trace_path.empty()) {
      messages.Say("--check-determinism and --trace cannot be combined: record a run with --trace on its own");
      return kExitError;
    }
    return CheckDeterminism(std::move(settings), options.check_determinism, messages);
  }
  if (!options.trace_path.empty()) {
    // Recorded so that a replay reads the same bytes.
    auto input = supervisor::CaptureStandardInput(kStandardInputLimit);
    if (!input) {
      messages.Say(input.error());
      return kExitError;
    }
    settings.input = std::move(input.value());
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
  uint64_t isolated = 0;
  const supervisor::ExecutionResult result =
      Execute(execution, recording ? static_cast<search::Strategy&>(recording->Strategy()) : strategy, &isolated);
  bool ok = ReportExecution(result, execution.spec.path, "run", options.report_path, messages);
  if (recording) {
    if (auto finished = recording->Finish(result, settings, isolated); !finished) {
      messages.Say(finished.error());
      ok = false;
    }
  }
  return ok ? RunExitCode(result) : kExitError;
}

}  // namespace chess::cli
