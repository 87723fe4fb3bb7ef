// `chess-trace run`: one faithful, serialized execution of a program.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace chess::cli {

struct RunOptions {
  std::optional<int> cpu;
  bool no_pin = false;
  std::string report_path;
  std::string log_path;
  std::optional<double> external_wait_seconds;
  double slice_ms = 10;
  size_t max_processes = 1000;
  std::vector<std::string> command;
};

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);
int RunCommand(const RunOptions& options);

}  // namespace chess::cli
