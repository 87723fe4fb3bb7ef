// Launcher: starts the program as a seized tracee with the filter installed, and resolves the
// program name the way a shell would so users get 127/126 with a reason instead of a trace.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/result.h"
#include "seccomp/filter.h"
#include "supervisor/world/isolation.h"

namespace chess::supervisor {

struct LaunchSpec {
  std::string path;               // resolved executable (see ResolveProgram)
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // passed exactly: addresses depend on these bytes
  std::string cwd;                // the program's working directory; empty: chess-trace's
  std::optional<int> cpu;         // pin the tree to this CPU
  bool fixed_addresses = false;   // ASLR off (personality ADDR_NO_RANDOMIZE), for every exec
  bool trap_timestamp_counter = false;  // rdtsc and rdtscp fault (PR_TSC_SIGSEGV), for every exec
  const seccomp::BpfProgram* filter = nullptr;
};

struct LaunchedProgram {
  pid_t pid = 0;
  int exec_error_fd = -1;  // read end: holds errno if execve failed in the child
};

// What runs in the new process, given the read end of the pipe it waits on until it is traced
// and the write end it reports an exec failure to: affinity, personality, the filter, execve.
// The function owns copies of everything it needs (it may run in a copy of chess-trace made
// before the launch: see IsolatedInit).
std::function<void(int go_fd, int error_fd)> ProgramMain(const LaunchSpec& spec);

// Starts the program as a seized tracee: forked by chess-trace, or by the init of `isolation`.
Result<LaunchedProgram> Launch(const LaunchSpec& spec, IsolatedInit* isolation = nullptr);

// The errno the child wrote when its execve failed, if it did.
std::optional<int> ReadExecError(int exec_error_fd);

struct ProgramNotRunnable {
  int exit_code;  // 127 not found, 126 not executable
  std::string message;
};

// Finds `name` on PATH (unless it contains a slash) and checks that it can be executed.
std::optional<ProgramNotRunnable> ResolveProgram(const std::string& name, std::string& path);

}  // namespace chess::supervisor
