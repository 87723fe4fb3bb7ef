// chess-trace: the composition root. Parses the command line and hands each command its parts.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/exit_codes.h"
#include "cli/explore_command.h"
#include "cli/merge_command.h"
#include "cli/run_command.h"
#include "cli/suite/test_command.h"
#include "cli/trace_commands.h"
#include "supervisor/invariant.h"

#ifndef CHESS_TRACE_VERSION
#define CHESS_TRACE_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  chess::supervisor::InstallCrashReporter();
  CLI::App app{
      "chess-trace finds and reproduces concurrency bugs in unmodified Linux programs.\n"
      "It runs the program under ptrace with a seccomp filter, lets exactly one thread run at a\n"
      "time, and decides every thread switch itself.\n\n"
      "Examples:\n"
      "  chess-trace run -- ./my_test --threads 4\n"
      "  chess-trace explore -- ./my_test          (search its schedules for a bug)\n"
      "  chess-trace test --junit out.xml -- ./unit_tests   (each test case in its own search)\n"
      "  chess-trace explore --shard 2/4 --report s2.json -- ./my_test   (one part of 4, on 4 machines)\n"
      "  chess-trace merge s1.json s2.json s3.json s4.json   (their verdict together)\n"
      "  chess-trace run --report run.json -- python3 worker.py\n"
      "  chess-trace run --trace bug.trace -- ./my_test && chess-trace replay bug.trace\n"
      "  chess-trace show bug.trace\n",
      "chess-trace"};
  app.formatter(std::make_shared<chess::cli::HelpFormatter>());  // before the commands: they copy it
  app.set_version_flag("--version", std::string("chess-trace ") + CHESS_TRACE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  // Everything after the first `--` is the program's, untouched by option parsing.
  std::vector<std::string> ours(argv + 1, argv + argc);
  std::vector<std::string> program;
  if (auto dashes = std::find(ours.begin(), ours.end(), "--"); dashes != ours.end()) {
    program.assign(dashes + 1, ours.end());
    ours.erase(dashes, ours.end());
  }

  chess::cli::RunOptions run_options;
  CLI::App* run = chess::cli::AddRunCommand(app, run_options);
  run->callback([&run_options, &program]() {
    run_options.program.command.insert(run_options.program.command.end(), program.begin(), program.end());
    std::exit(chess::cli::RunCommand(run_options));
  });
  chess::cli::ExploreOptions explore_options;
  CLI::App* explore = chess::cli::AddExploreCommand(app, explore_options);
  explore->callback([&explore_options, &program]() {
    explore_options.program.command.insert(explore_options.program.command.end(), program.begin(), program.end());
    std::exit(chess::cli::ExploreCommand(explore_options));
  });
  chess::cli::suite::TestOptions test_options;
  CLI::App* test = chess::cli::suite::AddTestCommand(app, test_options);
  test->callback([&test_options, &program, test]() {
    test_options.command = program;
    chess::cli::suite::TakeExploreOptions(*test, test_options);
    std::exit(chess::cli::suite::TestCommand(test_options));
  });
  chess::cli::MergeOptions merge_options;
  CLI::App* merge = chess::cli::AddMergeCommand(app, merge_options);
  merge->callback([&merge_options]() { std::exit(chess::cli::MergeCommand(merge_options)); });
  chess::cli::ReplayOptions replay_options;
  CLI::App* replay = chess::cli::AddReplayCommand(app, replay_options);
  replay->callback([&replay_options, &program]() {
    replay_options.command = program;
    std::exit(chess::cli::ReplayCommand(replay_options));
  });
  chess::cli::ShowOptions show_options;
  CLI::App* show = chess::cli::AddShowCommand(app, show_options);
  show->callback([&show_options]() { std::exit(chess::cli::ShowCommand(show_options)); });

  // A word where a command belongs that is none: CLI11 would say "A subcommand is required".
  if (const std::string unknown = chess::cli::UnknownCommandOf(ours); !unknown.empty()) {
    std::fprintf(stderr, "chess-trace: '%s' is not a command: say run, explore, test, merge, replay or show (chess-trace --help)\n",
                 unknown.c_str());
    return chess::cli::kExitError;
  }
  const std::string command = chess::cli::CommandOf(ours);
  try {
    std::reverse(ours.begin(), ours.end());  // CLI11 consumes a vector from the back
    app.parse(ours);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "chess-trace: %s\n%s\n", chess::cli::ParseErrorText(e, command).c_str(),
                 chess::cli::UsageLine(command).c_str());
    return chess::cli::kExitError;
  }
  return 0;
}
