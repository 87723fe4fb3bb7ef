// Running a command natively, untraced, with its output captured and a deadline: how `chess-trace
// test` asks a test binary for its list of test cases before searching any of them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "search/result.h"

namespace chess::cli::suite {

struct CapturedRun {
  int status = 0;  // a wait status: WIFEXITED/WEXITSTATUS, WIFSIGNALED/WTERMSIG
  std::string out;
  std::string err;
};

// Runs `command` (found through PATH) in a process group of its own, its stdin /dev/null, and
// collects what it writes to stdout and to stderr. At `timeout` the whole group is killed and
// reaped and the run is an error; after a normal end the group is killed too, so nothing the
// command left in the background outlives it. An error also when it cannot be started.
Result<CapturedRun> RunCaptured(const std::vector<std::string>& command, std::chrono::milliseconds timeout);

// `program` as execvp would find it: itself when it names a path, else the first executable file
// of that name in PATH. Empty when there is none.
std::string ResolveProgram(const std::string& program);

// "exit status 3", "killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int status);

}  // namespace chess::cli::suite
