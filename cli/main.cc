// chess-trace: the composition root. Parses the command line and hands each command its parts.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/exit_codes.h"
#include "cli/run_command.h"

#ifndef CHESS_TRACE_VERSION
#define CHESS_TRACE_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  CLI::App app{
      "chess-trace finds and reproduces concurrency bugs in unmodified Linux programs.\n"
      "It runs the program under ptrace with a seccomp filter, lets exactly one thread run at a\n"
      "time, and decides every thread switch itself.\n\n"
      "Examples:\n"
      "  chess-trace run -- ./my_test --threads 4\n"
      "  chess-trace run --report run.json -- python3 worker.py\n",
      "chess-trace"};
  app.set_version_flag("--version", std::string("chess-trace ") + CHESS_TRACE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  chess::cli::RunOptions run_options;
  CLI::App* run = chess::cli::AddRunCommand(app, run_options);
  run->callback([&run_options]() { std::exit(chess::cli::RunCommand(run_options)); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    std::fprintf(stderr, "Run 'chess-trace --help' or 'chess-trace run --help' for usage.\n");
    return chess::cli::kExitError;
  }
  return 0;
}
