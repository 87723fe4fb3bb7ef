// The options `run` and `explore` share: how the program is launched, what it sees (time, seed,
// namespaces), and where scheduling points are. One definition, so both commands take them the
// same way and explain them the same way in --help.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/execution.h"
#include "cli/messages.h"

namespace chess::cli {

struct ProgramOptions {
  std::optional<int> cpu;
  bool no_pin = false;
  std::string log_path;
  std::optional<double> external_wait_seconds;
  double slice_ms = 10;
  size_t max_processes = 1000;
  std::string seed = "0";            // 0 to 2^64-1, checked by BuildSettings
  std::string epoch = "2024-01-01";  // "now", seconds since 1970, or this fixed date
  bool real_time = false;
  std::optional<std::string> isolate;      // given: required; default: the command's, where allowed
  std::optional<std::string> sync_points;  // "syscalls", "auto", "processes", "atomics" or "races"; default: the command's
  std::vector<std::string> command;
};

// Adds the shared options to a command. `defaults` words what the command does without
// --isolate and --sync-points.
struct ProgramOptionDefaults {
  std::string isolate = "pid,uts,ipc,mnt";
  std::string isolate_text = "all four where the kernel allows them";
  std::string sync_points_text = "syscalls";
};
void AddProgramOptions(CLI::App& command, ProgramOptions& options, const ProgramOptionDefaults& defaults);

// The settings for PrepareExecution; on bad input says why and returns nothing.
std::optional<ExecutionSettings> BuildSettings(const ProgramOptions& options, const std::string& default_isolation,
                                               SyncPoints default_sync_points, Messages& messages);

}  // namespace chess::cli
