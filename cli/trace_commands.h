// `chess-trace replay TRACE` and `chess-trace show TRACE`.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace chess::cli {

struct ReplayOptions {
  std::string trace_path;
  std::optional<int> cpu;
  bool no_pin = false;
  std::string report_path;
  std::string log_path;
  std::string stop_at;                // --stop-at: a decision number, last-preemption or failure
  std::vector<std::string> command;  // an override of the recorded program (a rebuilt binary)
};

struct ShowOptions {
  std::string trace_path;
  std::string format = "text";
};

CLI::App* AddReplayCommand(CLI::App& app, ReplayOptions& options);
int ReplayCommand(const ReplayOptions& options);

CLI::App* AddShowCommand(CLI::App& app, ShowOptions& options);
int ShowCommand(const ShowOptions& options);

}  // namespace chess::cli
