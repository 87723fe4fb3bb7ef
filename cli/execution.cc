#include "cli/execution.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "cli/atomic_point_learning.h"
#include "cli/cpu_pinning.h"
#include "cli/exit_codes.h"
#include "cli/report.h"
#include "seccomp/syscall_table.h"
#include "supervisor/clock.h"
#include "supervisor/supervisor.h"

namespace chess::cli {
namespace {


// The user's LD_PRELOAD entries stay, after the shim (which must see the calls first: an
// interposer of the user's calls the real function through the shim).
void AddPreload(std::vector<std::string>& env, const std::string& shim) {
  for (std::string& variable : env) {
    if (variable.rfind("LD_PRELOAD=", 0) == 0) {
      const std::string rest = variable.substr(11);
      variable = "LD_PRELOAD=" + shim + (rest.empty() ? "" : ":" + rest);
      return;
    }
  }
  env.push_back("LD_PRELOAD=" + shim);
}

}  // namespace

const char* SyncPointsName(SyncPoints level) {
  switch (level) {
    case SyncPoints::kSyscalls: return "syscalls";
    case SyncPoints::kAuto: return "auto";
    case SyncPoints::kProcesses: return "processes";
    case SyncPoints::kAtomics: return "atomics";
    case SyncPoints::kRaces: return "races";
  }
  return "syscalls";
}

std::optional<SyncPoints> ParseSyncPoints(const std::string& word) {
  for (SyncPoints level : {SyncPoints::kSyscalls, SyncPoints::kAuto, SyncPoints::kProcesses, SyncPoints::kAtomics,
                           SyncPoints::kRaces}) {
    if (word == SyncPointsName(level)) return level;
  }
  return std::nullopt;
}

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string& error) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << content;
    if (!out.flush()) {
      error = "cannot write " + path + ": " + std::strerror(errno);
      out.close();
      std::remove(temporary.c_str());
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

namespace {

// The directory a path's file goes in: "." for a bare name.
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// `dir` exists, is a directory, and a new file can be made in it.
Result<void> CheckWritableDirectory(const std::string& option, const std::string& path, const std::string& dir) {
  struct stat info{};
  if (stat(dir.c_str(), &info) != 0) {
    return Error{option + " " + path + ": " + (errno == ENOENT ? "the directory " + dir + " does not exist"
                                                                : dir + ": " + std::strerror(errno))};
  }
  if (!S_ISDIR(info.st_mode)) return Error{option + " " + path + ": " + dir + " is not a directory"};
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error{option + " " + path + ": cannot make files in " + dir + " (" + std::strerror(errno) + ")"};
  }
  return {};
}

}  // namespace

Result<void> CheckFileDestination(const std::string& option, const std::string& path) {
  if (path.empty() || path.back() == '/') return Error{option + " " + path + ": give a file name"};
  struct stat info{};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Error{option + " " + path + ": is a directory; give a file name"};
  }
  return CheckWritableDirectory(option, path, DirectoryOf(path));
}

Result<void> CheckDirectoryDestination(const std::string& option, const std::string& dir) {
  if (dir.empty()) return Error{option + ": give a directory"};
  struct stat info{};
  if (stat(dir.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return Error{option + " " + dir + ": not a directory"};
    return CheckWritableDirectory(option, dir, dir);
  }
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  return CheckWritableDirectory(option, dir, DirectoryOf(trimmed));
}

std::optional<std::string> FindPreloadShim() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return std::nullopt;
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  for (const std::string& candidate : {dir + "/libchess_preload.so", dir + "/../lib/chess-trace/libchess_preload.so"}) {
    if (access(candidate.c_str(), R_OK) == 0) {
      char resolved[PATH_MAX];
      return realpath(candidate.c_str(), resolved) != nullptr ? std::string(resolved) : candidate;
    }
  }
  return std::nullopt;
}

std::string CurrentDirectory() {
  char buffer[PATH_MAX];
  return getcwd(buffer, sizeof(buffer)) != nullptr ? std::string(buffer) : std::string();
}

bool CaptureInput(ExecutionSettings& settings, Messages& messages) {
  auto input = supervisor::CaptureStandardInput(kStandardInputLimit);
  if (!input) {
    messages.Say(input.error());
    return false;
  }
  settings.input = std::move(input.value());
  return true;
}

std::variant<PreparedExecution, int> PrepareExecution(const ExecutionSettings& settings, Messages& messages) {
  if (settings.command.empty()) {
    messages.Say("no program given. Usage: chess-trace run [OPTIONS] -- PROGRAM [ARGS...]");
    return kExitError;
  }
  PreparedExecution prepared;
  std::string path;
  if (auto problem = supervisor::ResolveProgram(settings.executable.empty() ? settings.command.front() : settings.executable, path)) {
    messages.Say(problem->message);
    return problem->exit_code;
  }
  const bool cross_process = settings.sync_points >= SyncPoints::kProcesses;
  const bool atomics = settings.sync_points >= SyncPoints::kAtomics;
  auto filter = seccomp::CompileFilter(seccomp::TrappedRows({.cross_process = cross_process, .code_mappings = atomics}),
                                       settings.observe_all);
  if (!filter) {
    messages.Say(filter.error());
    return kExitError;
  }
  prepared.filter = std::make_unique<seccomp::BpfProgram>(std::move(filter.value()));
  auto pinning = PinSupervisor(settings.cpu, !settings.no_pin);
  if (!pinning) {
    messages.Say(pinning.error());
    return kExitError;
  }

  supervisor::LaunchSpec& spec = prepared.spec;
  spec.path = path;
  spec.argv = settings.command;
  spec.env = settings.env;
  std::optional<std::string> shim;
  if (settings.sync_points != SyncPoints::kSyscalls) {
    shim = FindPreloadShim();
    if (!shim) {
      messages.Say(std::string("--sync-points ") + SyncPointsName(settings.sync_points) + ": the preload shim libchess_preload.so is neither next to chess-trace nor "
                   "in ../lib/chess-trace from it; reinstall chess-trace, or give --sync-points syscalls");
      return kExitError;
    }
    AddPreload(spec.env, *shim);
    prepared.options.preload_shim = true;
  }
  spec.cwd = settings.cwd;
  spec.cpu = pinning->cpu;
  spec.filter = prepared.filter.get();
  spec.fixed_addresses = true;
  spec.trap_timestamp_counter = settings.epoch.has_value();

  supervisor::SupervisorOptions& options = prepared.options;
  options.slice = std::chrono::nanoseconds(static_cast<int64_t>(settings.slice_ms * 1e6));
  options.io_points = cross_process;
  if (atomics) {
    options.atomic_points = settings.atomic_points.value_or(LearningPlan(settings.sync_points));
    prepared.code_cache = std::make_unique<code::CodeCache>();
    options.code_cache = prepared.code_cache.get();
  }
  if (settings.external_wait_seconds) {
    options.external_wait = std::chrono::nanoseconds(static_cast<int64_t>(*settings.external_wait_seconds * 1e9));
  }
  if (pinning->cpu) options.visible_affinity = pinning->machine_mask;
  options.max_processes = settings.max_processes;
  options.epoch = settings.epoch;
  options.seed = settings.seed;
  options.isolation = supervisor::IsolationFromWord(settings.isolation);
  options.isolation_required = settings.isolation_required;
  prepared.namespaces = std::make_unique<supervisor::IsolatedInit>();
  options.shared_init = prepared.namespaces.get();
  // A private /tmp hides what is under it: the working directory, the program, the shim and
  // what the arguments name (a script given to `sh`, a data file) stay. A file right in /tmp
  // (`cc -o /tmp/t`) stays alone, bound in place: /tmp itself cannot stay without the rest.
  const std::string cwd = settings.cwd.empty() ? CurrentDirectory() : settings.cwd;
  if (options.isolation.private_cwd) {
    // The program enters its private working directory by this name (a chdir after the
    // overlay is mounted there), so it must be one.
    if (cwd.empty() || cwd.front() != '/') {
      messages.Say("--isolate cwd: the working directory cannot be told");
      return kExitError;
    }
    if (cwd == "/") {
      messages.Say("--isolate cwd: the working directory is /, and cwd puts an overlay over the working "
                   "directory, not over the whole file system; run chess-trace from the program's own directory");
      return kExitError;
    }
    if (cwd == "/tmp" && options.isolation.private_tmp) {
      messages.Say("--isolate tmp,cwd: the working directory is /tmp, which tmp already makes private to each "
                   "execution (and empty); leave cwd out, or run from a directory under /tmp");
      return kExitError;
    }
    options.isolation.cwd = cwd;
    spec.cwd = cwd;
  }
  std::vector<std::string> kept{cwd};
  auto keep_what_names = [&](const std::string& name) {
    std::string absolute = std::filesystem::path(name.empty() || name[0] == '/' ? name : cwd + "/" + name)
                               .lexically_normal()
                               .string();
    if (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
    struct stat named{};
    if (absolute.rfind("/tmp/", 0) != 0 || stat(absolute.c_str(), &named) != 0) return;
    const std::string parent = absolute.substr(0, absolute.rfind('/'));
    kept.push_back(S_ISDIR(named.st_mode) || parent == "/tmp" ? absolute : parent);
  };
  keep_what_names(path);
  if (shim) keep_what_names(*shim);
  for (size_t i = 1; i < settings.command.size(); ++i) keep_what_names(settings.command[i]);
  for (const std::string& kept_path : kept) {
    const bool seen = std::find(options.isolation.kept_in_tmp.begin(), options.isolation.kept_in_tmp.end(),
                                kept_path) != options.isolation.kept_in_tmp.end();
    if (kept_path.rfind("/tmp/", 0) == 0 && !seen) options.isolation.kept_in_tmp.push_back(kept_path);
  }
  // Once per command, not once per execution: a search's executions repeat each other's.
  options.notice = [&messages, said = std::make_shared<std::set<std::string>>()](const std::string& text) {
    if (said->insert(text).second) messages.Say(text);
  };
  prepared.input = settings.input;
  return prepared;
}

supervisor::ExecutionResult Execute(const PreparedExecution& prepared, const supervisor::SupervisorOptions& options,
                                    search::Strategy& strategy, uint64_t* isolated) {
  if (prepared.input) {
    std::string notice;
    if (auto provided = supervisor::ProvideStandardInput(*prepared.input, &notice); !provided) {
      supervisor::ExecutionResult failed;
      failed.outcome = search::Outcome::kError;
      failed.message = provided.error();
      return failed;
    }
    if (!notice.empty() && options.notice) options.notice(notice);
  }
  // What the program gets on 0-2, for a trace: whatever their kinds, replays give it the same.
  const supervisor::StandardDescriptors given = supervisor::CurrentStandardDescriptors();
  supervisor::Supervisor supervisor(options, strategy);
  supervisor::InstallStopHandlers();
  if (prepared.spec.trap_timestamp_counter) supervisor::TrapOwnTimestampCounter();
  supervisor::ExecutionResult result = supervisor.Run(prepared.spec);
  if (isolated != nullptr) *isolated = supervisor.IsolatedNamespaces();
  result.standard_descriptors = given;
  return result;
}

bool ReportExecution(const supervisor::ExecutionResult& result, const std::string& path, const std::string& command,
                     const std::string& report_path, const std::optional<search::AtomicPointPlan>& atomic_points,
                     Messages& messages, const std::function<void(JsonWriter&)>& more) {
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
  if (report_path.empty()) return true;
  std::string error;
  if (!WriteFileAtomically(report_path, JsonReport(result, command, atomic_points, more), error)) {
    messages.Say(error);
    return false;
  }
  return true;
}

}  // namespace chess::cli
