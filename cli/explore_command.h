// `chess-trace explore`: the search. Runs the program through schedule after schedule — by
// default every one with no preemption, then with one, then two; or the same by delays (db); or
// random samples (random, PCT), or pb, PCT and random in turn — until a bug shows up or a limit
// is reached, and saves each bug as a trace `replay` reproduces.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/program_options.h"
#include "search/shard.h"
#include "search/strategy_kind.h"

namespace chess::cli {

struct ExploreOptions {
  ProgramOptions program;
  search::StrategyKind strategy = search::StrategyKind::kPb;
  uint32_t preemption_bound = 2;
  std::optional<uint32_t> delay_bound;  // --delay-bound, db's only; unset: the Explorer's default
  uint32_t pct_depth = 3;
  // Directed executions per deadlock cycle predicted from the first execution (0: no prediction).
  uint32_t predict_budget = 5;
  bool state_cache = true;
  bool minimize = true;
  bool fork_server = true;
  uint64_t max_executions = 100'000;
  std::optional<double> time_limit_seconds;
  double execution_timeout_seconds = 60;
  uint64_t max_steps = 100'000;
  uint64_t max_atomic_points = 10'000;  // --sync-points atomics: points per execution
  int expect_exit = 0;
  std::optional<std::string> fail_on_output;  // --fail-on-output REGEX
  std::string expect_stdout_path;             // --expect-stdout FILE
  bool same_output = false;                   // --same-output
  std::vector<std::string> output_files;      // --output-file PATH…
  std::optional<std::string> check_command;   // --check CMD
  bool keep_going = false;
  std::string out_dir = "chess-trace-out";
  std::string report_path;
  bool quiet = false;
  std::vector<std::string> focus;  // --focus: the programs whose threads are searched
  search::Shard shard;             // --shard I/N: the part of the search this process runs
  std::string checkpoint_path;     // --checkpoint FILE: a new checkpoint of this search
  std::string resume_path;         // --resume FILE: the checkpoint this search continues (and extends)
  uint32_t jobs = 1;               // -j N: worker processes (0: one per CPU chess-trace may use)
};

CLI::App* AddExploreCommand(CLI::App& app, ExploreOptions& options);
int ExploreCommand(const ExploreOptions& options);

}  // namespace chess::cli
