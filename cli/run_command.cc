#include "cli/run_command.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "cli/cpu_pinning.h"
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

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string& error) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << content;
    if (!out.flush()) {
      error = "cannot write " + temporary + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
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
                  "all four where the kernel allows them; given explicitly, a refusal is an error)")
      ->type_name("LIST");
  run->add_flag("--real-time", options.real_time,
                "Let the program read the machine's clocks, rdtsc included, and sleep in real time "
                "(for programs that talk to the outside world against real timeouts)");
  run->add_option("command", options.command,
                  "PROGRAM [ARGS...]; put -- before it when its arguments start with a dash")
      ->type_name("PROGRAM [ARGS...]");
  return run;
}

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

int RunCommand(const RunOptions& options) {
  Messages messages;
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
  if (options.command.empty()) {
    messages.Say("no program given. Usage: chess-trace run [OPTIONS] -- PROGRAM [ARGS...]");
    return kExitError;
  }
  if (!options.log_path.empty()) {
    if (auto opened = messages.OpenLog(options.log_path); !opened) {
      messages.Say(opened.error());
      return kExitError;
    }
  }
  std::string path;
  if (auto problem = supervisor::ResolveProgram(options.command.front(), path)) {
    messages.Say(problem->message);
    return problem->exit_code;
  }
  auto filter = seccomp::CompileFilter(seccomp::SyscallTable());
  if (!filter) {
    messages.Say(filter.error());
    return kExitError;
  }
  auto pinning = PinSupervisor(options.cpu, !options.no_pin);
  if (!pinning) {
    messages.Say(pinning.error());
    return kExitError;
  }

  supervisor::LaunchSpec spec;
  spec.path = path;
  spec.argv = options.command;
  for (char** variable = environ; *variable != nullptr; ++variable) spec.env.emplace_back(*variable);
  spec.cpu = pinning->cpu;
  spec.filter = &filter.value();
  spec.fixed_addresses = true;
  spec.trap_timestamp_counter = !options.real_time;

  supervisor::SupervisorOptions supervisor_options;
  supervisor_options.slice = std::chrono::nanoseconds(static_cast<int64_t>(options.slice_ms * 1e6));
  if (options.external_wait_seconds) {
    supervisor_options.external_wait =
        std::chrono::nanoseconds(static_cast<int64_t>(*options.external_wait_seconds * 1e9));
  }
  if (pinning->cpu) supervisor_options.visible_affinity = pinning->machine_mask;
  supervisor_options.max_processes = options.max_processes;
  if (!options.real_time) supervisor_options.epoch = *epoch;
  supervisor_options.seed = *seed;
  auto isolation = supervisor::ParseIsolation(options.isolate.value_or("pid,uts,ipc,mnt"));
  if (!isolation) {
    messages.Say(isolation.error());
    return kExitError;
  }
  supervisor_options.isolation.namespaces = *isolation;
  supervisor_options.isolation_required = options.isolate.has_value();
  supervisor_options.notice = [&messages](const std::string& text) { messages.Say(text); };

  search::NonPreemptiveStrategy strategy;
  supervisor::Supervisor supervisor(std::move(supervisor_options), strategy);
  supervisor::InstallStopHandlers();
  if (!options.real_time) supervisor::TrapOwnTimestampCounter();
  const supervisor::ExecutionResult result = supervisor.Run(spec);

  if (result.exec_errno) {
    messages.Say("cannot execute " + path + ": " + std::strerror(*result.exec_errno));
  } else if (result.stopped_by_signal) {
    messages.Say("stopped by " + SignalName(result.stopped_by_signal) + "; the program was killed");
    messages.Raw(ThreadStates(result));
  } else if (result.outcome == search::Outcome::kError) {
    messages.Say("error: " + result.message);
  } else {
    messages.Raw(TextReport(result));
  }
  if (!options.report_path.empty()) {
    std::string error;
    if (!WriteFileAtomically(options.report_path, JsonReport(result, "run"), error)) {
      messages.Say(error);
      return kExitError;
    }
  }
  return RunExitCode(result);
}

}  // namespace chess::cli
