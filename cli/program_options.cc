#include "cli/program_options.h"

#include "cli/command_line.h"

#include <ctime>

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

void AddProgramOptions(CLI::App& command, ProgramOptions& options, const ProgramOptionDefaults& defaults) {
  command.add_option("--cpu", options.cpu,
                     "Run the supervisor and the program on this CPU (default: one of the allowed "
                     "CPUs; the program still sees the whole CPU mask)")
      ->type_name("CPU")
      ->check(WholeNumber(0, 8191));
  command.add_flag("--no-pin", options.no_pin, "Do not pin to one CPU (slower ptrace round trips)");
  command.add_option("--log", options.log_path, "Write chess-trace's own messages to FILE instead of stderr")
      ->type_name("FILE");
  command.add_option("--external-wait", options.external_wait_seconds,
                     "End an execution as `hang` (run exits 124, explore reports a bug) when every thread has waited only on the "
                     "outside world (a terminal, a socket to another program) for S seconds. Default: `run` "
                     "waits as long as the program would without chess-trace; `explore` 5 s")
      ->type_name("S")
      ->check(PositiveAmount("seconds"));
  command.add_option("--slice", options.slice_ms,
                     "Interrupt a thread that has run this many milliseconds without blocking or "
                     "yielding, when another thread could run")
      ->type_name("MS")
      ->check(AmountFrom("milliseconds", 0.1, 10000))
      ->capture_default_str();
  command.add_option("--max-processes", options.max_processes,
                     "Stop an execution (exit 125) when the program tries to have more than N "
                     "processes at once, so a fork bomb stops and not the machine")
      ->type_name("N")
      ->check(AtLeastOne())
      ->capture_default_str();
  command.add_option("--seed", options.seed,
                     "Seed of everything random the program reads: getrandom, /dev/urandom, the "
                     "stack canary. The same seed (and schedule) gives the same run")
      ->type_name("N")
      ->capture_default_str();
  command.add_option("--epoch", options.epoch,
                     "What the program's CLOCK_REALTIME says when it starts: seconds since 1970, or "
                     "`now`. Time is virtual: it moves as the program runs, and sleeps cost no wall "
                     "time (default: 2024-01-01 00:00:00 UTC)")
      ->type_name("now|SECONDS");
  command.add_option("--isolate", options.isolate,
                     "Namespaces the program's tree runs in, so its pids, tids and hostname are the "
                     "same every run: a comma-separated list of pid, uts, ipc, mnt, or none. `tmp` "
                     "adds a fresh, empty /tmp of the tree's own (a tmpfs, gone after the run). `net` "
                     "adds a private network namespace with only loopback, up: ports never collide "
                     "with the machine's or another run's. `cwd` makes the working directory private "
                     "to each execution: the program sees it as it was, and what it writes there goes "
                     "to an overlay of its own (a tmpfs layer, gone after the execution), never to the "
                     "real directory — for a program that creates files where it runs. "
                     "Default: " + defaults.isolate + ", " + defaults.isolate_text +
                     "; given explicitly, a refusal is an error")
      ->type_name("LIST");
  command.add_flag("--real-time", options.real_time,
                   "Let the program read the machine's clocks, rdtsc included, and sleep in real time "
                   "(for programs that talk to the outside world against real timeouts)");
  command.add_option("--sync-points", options.sync_points,
                     "Where threads may be switched besides the syscalls that synchronize threads "
                     "(futex, clone, exit, signals, blocking waits). `syscalls`: only there. `auto`: also "
                     "at every pthread and C11 lock, condition variable, barrier, semaphore and once "
                     "operation of a dynamically linked program, announced by a preloaded shim "
                     "(libchess_preload.so; the program's own LD_PRELOAD stays; static programs keep "
                     "syscall points); uncontended locks make no syscall, so most atomicity bugs need "
                     "these. `processes`: also at what other processes see — pipe and socket reads and "
                     "writes, bind, listen, connect, accept, shutdown, unlink, rename, mkdir, open with "
                     "O_CREAT, mknod, wait4 — so races between the processes of a harness are explored; "
                     "`auto` trims those for speed. `atomics`: also before the atomic instructions (locked "
                     "read-modify-writes, xchg, cmpxchg, fences) of the program's own code and of its libraries "
                     "that run while another thread is alive — for lock-free code, Rust, C11/C++ atomics. A first "
                     "execution, run without preemptions, learns which sites those are (libc and ld.so stay out "
                     "when the shim announces their locks); breakpoints there then cost a trap and a ptrace round "
                     "trip each, so a search runs slower, and explore's --max-atomic-points caps them per execution. "
                     "Atomic loads and relaxed or release stores (plain moves on x86) and plain memory accesses "
                     "are not points. `races`: also before the plain memory accesses that race: the first "
                     "execution also samples memory-access instructions (a one-shot breakpoint each, a hardware "
                     "watchpoint in the other threads) and reports each data race it sees (a report, not a bug); "
                     "both racing instructions are then points of every execution. That first execution runs "
                     "slower, and a race whose accesses it did not sample is no point; on x86 a correct "
                     "release/acquire pair is plain moves too, is reported as a race and becomes points: the search "
                     "grows, its results stay right "
                     "(default: " + defaults.sync_points_text + ")")
      ->check(OneOf({"syscalls", "auto", "processes", "atomics", "races"}))
      ->type_name("syscalls|auto|processes|atomics|races");
  command.add_option("command", options.command,
                     "PROGRAM [ARGS...]; put -- before it when its arguments start with a dash")
      ->type_name("PROGRAM [ARGS...]");
}

std::optional<ExecutionSettings> BuildSettings(const ProgramOptions& options, const std::string& default_isolation,
                                               SyncPoints default_sync_points, Messages& messages) {
  const std::optional<uint64_t> seed = ParseSeed(options.seed);
  if (!seed) {
    messages.Say("--seed " + options.seed + ": expected a whole number from 0 to 18446744073709551615");
    return std::nullopt;
  }
  const std::optional<int64_t> epoch = ParseEpoch(options.epoch);
  if (!epoch) {
    messages.Say("--epoch " + options.epoch + ": expected `now` or a number of seconds since 1970 "
                 "(0 to 9000000000)");
    return std::nullopt;
  }
  auto isolation = supervisor::ParseIsolation(options.isolate.value_or(default_isolation));
  if (!isolation) {
    messages.Say(isolation.error());
    return std::nullopt;
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
  settings.sync_points = options.sync_points ? *ParseSyncPoints(*options.sync_points) : default_sync_points;
  return settings;
}

}  // namespace chess::cli
