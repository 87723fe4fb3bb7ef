// `chess-trace run`: one faithful, serialized execution of a program.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/program_options.h"

#include <optional>
#include <string>
#include <vector>

namespace chess::cli {

struct RunOptions {
  ProgramOptions program;
  std::string report_path;
  std::string trace_path;
  bool force = false;
  int check_determinism = 0;  // runs to compare; 0: an ordinary run
  bool predict = false;       // list the lock-order cycles the run shows (potential deadlocks)
};

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);
int RunCommand(const RunOptions& options);

}  // namespace chess::cli
