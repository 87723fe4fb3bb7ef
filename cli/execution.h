// What `run` and `replay` share: turning settings into a launch and a supervisor, running one
// execution, and reporting it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/json_writer.h"
#include "cli/messages.h"
#include "search/atomic_points.h"
#include "search/strategy.h"
#include "seccomp/filter.h"
#include "supervisor/world/standard_input.h"
#include "supervisor/supervisor_options.h"
#include "supervisor/world/launcher.h"

namespace chess::cli {

// --sync-points: each level adds scheduling points to the one before.
enum class SyncPoints : uint8_t {
  kSyscalls,   // the syscalls that synchronize threads: futex, clone, exit, waits, signals…
  kAuto,       // and pthread/C11 sync operations (the preload shim)
  kProcesses,  // and what other processes see: pipe and socket I/O, bind/connect/accept,
               // unlink/rename/mkdir/open(O_CREAT), wait4
  kAtomics,    // and the atomic instructions of the program's code, while another thread lives
  kRaces,      // and the plain memory accesses a learning execution found racing (race points)
};
const char* SyncPointsName(SyncPoints level);
std::optional<SyncPoints> ParseSyncPoints(const std::string& word);

struct ExecutionSettings {
  std::vector<std::string> command;  // PROGRAM ARGS…
  std::string executable;            // the file to run; empty: PROGRAM, looked up on PATH
  std::vector<std::string> env;
  std::string cwd;                   // empty: chess-trace's own
  std::optional<int> cpu;
  bool no_pin = false;
  double slice_ms = 10;
  std::optional<double> external_wait_seconds;
  size_t max_processes = 1000;
  std::optional<int64_t> epoch;      // empty: real time
  uint64_t seed = 0;
  uint64_t isolation = 0;            // --isolate: CLONE_NEW* flags and supervisor::kPrivateTmp
  bool isolation_required = false;
  // What each execution's stdin holds (read once, when it is not a terminal); empty: the
  // program inherits chess-trace's stdin.
  std::optional<supervisor::CapturedInput> input;
  bool observe_all = false;          // trap every syscall, for an observer (--check-determinism)
  // Where threads may be switched besides the syscalls that synchronize threads. kAuto adds the
  // sync operations the preload shim announces (it goes into LD_PRELOAD, not into `env`, which
  // stays the user's, as a trace records it); kProcesses adds what other processes see too.
  SyncPoints sync_points = SyncPoints::kSyscalls;
  // kAtomics and kRaces: which atomic instructions (and, kRaces, which racing plain accesses)
  // are points. Empty: an execution that learns them (stops at every one, parks at none: `run`;
  // kRaces also samples memory accesses for data races); a search, and a replay of one of its
  // traces, give the sites the search learned (kPoints), so that every execution stops at the
  // same ones.
  std::optional<search::AtomicPointPlan> atomic_points;
};

// How much standard input chess-trace reads to record it.
inline constexpr size_t kStandardInputLimit = size_t{256} << 20;

struct PreparedExecution {
  supervisor::LaunchSpec spec;
  supervisor::SupervisorOptions options;
  std::unique_ptr<seccomp::BpfProgram> filter;  // spec.filter points at it
  // The files decoded for atomic points, kept for every execution (options.code_cache points at
  // it): a search decodes each file once.
  std::unique_ptr<code::CodeCache> code_cache;
  std::optional<supervisor::CapturedInput> input;  // given afresh to each execution
  // The namespaces every execution runs in (options.shared_init points at it): a search's
  // executions share one set instead of creating their own.
  std::unique_ptr<supervisor::IsolatedInit> namespaces;
  // Where a search's executions are forked from (options.fork_server points at it); null: each
  // starts by execve. Declared after `namespaces`, so its template is killed before them.
  std::unique_ptr<supervisor::ForkServer> fork_server;
};

// Reads standard input whole (unless it is a terminal) into `settings.input`, so every execution
// gets the same bytes; false, said why, when it cannot.
bool CaptureInput(ExecutionSettings& settings, Messages& messages);

// Resolves the program, compiles the filter and pins chess-trace to a CPU. On failure the
// reason was said, and the exit code to end with is returned instead.
std::variant<PreparedExecution, int> PrepareExecution(const ExecutionSettings& settings, Messages& messages);

// Runs one execution with `strategy` deciding, under `options`: the prepared ones, or a copy
// that asks more of them (a trace's log, stacks to take), which leaves them as they were for the
// next execution. The stop handlers are installed, chess-trace's own rdtsc trapped when the
// program's is; `*isolated` is set to the --isolate word the execution really had.
supervisor::ExecutionResult Execute(const PreparedExecution& prepared, const supervisor::SupervisorOptions& options,
                                    search::Strategy& strategy, uint64_t* isolated = nullptr);

// Says how the execution ended (or why it could not run), and writes the JSON report if asked;
// `atomic_points`: the execution's plan, whose count the report then gives; `more` writes the
// command's own keys into the JSON report (run --predict's). Returns false when the report could
// not be written.
bool ReportExecution(const supervisor::ExecutionResult& result, const std::string& path, const std::string& command,
                     const std::string& report_path, const std::optional<search::AtomicPointPlan>& atomic_points,
                     Messages& messages, const std::function<void(JsonWriter&)>& more = {});

// Writes `content` to a temporary file beside `path` and renames it into place; false, with
// `error` set, when it cannot.
bool WriteFileAtomically(const std::string& path, const std::string& content, std::string& error);

// Where a file chess-trace writes when its work is done (--report, --trace) can take it: the
// directory exists and is writable, and the path is not a directory. Checked before the program
// starts, so a mistyped path fails at once instead of turning a finished run into an error.
Result<void> CheckFileDestination(const std::string& option, const std::string& path);
// The same for a directory made if missing (--out): it is one, writable, or its parent is.
Result<void> CheckDirectoryDestination(const std::string& option, const std::string& dir);

// The preload shim: next to the chess-trace executable (a build tree), or in
// ../lib/chess-trace from it (an installation).
std::optional<std::string> FindPreloadShim();

// The current directory, or "" if it cannot be told.
std::string CurrentDirectory();

}  // namespace chess::cli
