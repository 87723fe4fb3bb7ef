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
  std::string trace_path;
  bool force = false;
  std::optional<double> external_wait_seconds;
  double slice_ms = 10;
  size_t max_processes = 1000;
  std::string seed = "0";  // 0 to 2^64-1, checked by RunCommand
  std::string epoch = "2024-01-01";  // "now", seconds since 1970, or this fixed date
  bool real_time = false;
  std::optional<std::string> isolate;  // given: required; default: pid,uts,ipc,mnt where allowed
  std::optional<std::string> sync_points;  // "auto" or "syscalls"; default: auto with --trace
  int check_determinism = 0;  // runs to compare; 0: an ordinary run
  std::vector<std::string> command;
};

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);
int RunCommand(const RunOptions& options);

}  // namespace chess::cli
