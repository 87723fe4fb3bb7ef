// The report of a search: what a person reads on stderr and the --report JSON (design §5).
#pragma once

#include <string>
#include <vector>

#include "cli/divergence_report.h"
#include "cli/explore_backend.h"
#include "cli/search_identity.h"
#include "cli/visibility.h"
#include "search/explorer.h"
#include "trace/object_names.h"

namespace chess::cli {

// A bug as reported: what the search found, what its execution did, and its saved trace.
struct ReportedBug {
  search::FoundBug found;
  BugRun run;                   // the execution that found it
  std::string trace_path;       // empty when it could not be saved
  std::string trace_problem;    // why not, or how the replay that wrote it ended differently
  // Where each preemption happened: the stack of the preempted thread (from the replay).
  std::map<uint64_t, std::vector<supervisor::StackFrame>> preemption_stacks;
  // The variables its sync operations worked on (from the replay): a preemption "at acquire
  // balance_lock (atomicity_buggy)" rather than at an address.
  trace::ObjectNames object_names;
  // The atomic instructions it stopped before, by address, as the replay named them ("pop+0x1d
  // (treiber_aba_buggy) at treiber_aba_buggy.c:42"): what its critical pair names.
  std::map<uint64_t, std::string> instruction_names;
  // …and where they are, as the plan names instructions (module, file offset).
  std::map<uint64_t, search::CodeLocation> instruction_locations;
};

// --checkpoint FILE / --resume FILE, as the report tells it.
struct CheckpointSummary {
  std::string path;                 // empty: no checkpoint
  bool resumed = false;             // --resume: the search went on from the file
  uint64_t resumed_executions = 0;  // executions taken from it instead of being run
  std::string write_error;          // why the file stopped being written, if it did
};

struct SearchSummary {
  const search::ExplorationResult* result = nullptr;
  size_t jobs = 1;                 // -j: the worker processes that ran the executions
  CheckpointSummary checkpoint;    // --checkpoint, --resume
  uint64_t ran_ahead_unused = 0;   // executions they ran that the search ended before taking
  std::vector<ReportedBug> bugs;
  uint32_t preemption_bound = 0;
  // The part of the search this was (--shard), and what names the search for `merge`.
  search::Shard shard;
  SearchIdentity identity;
  std::optional<uint32_t> delay_bound;  // db's: its coverage is told in delays
  uint64_t seed = 0;              // the randomized strategies'
  uint32_t pct_depth = 0;
  double wall_seconds = 0;
  bool interrupted = false;       // Ctrl-C, SIGTERM or SIGHUP
  int stop_signal = 0;            // which of them
  // The execution Ctrl-C cut short, saved as a trace that ends where it was stopped.
  uint64_t interrupted_execution = 0;
  std::string interrupted_trace;
  std::string interrupted_trace_problem;
  bool time_limited = false;      // --time-limit
  uint64_t max_executions = 0;
  uint64_t max_steps = 0;
  std::string error;              // the search could not go on
  bool unsupported = false;       // … because the program failed after a refused call
  // The fork server: whether it was on, how many executions it started, and why it started
  // none (or stopped), when so.
  bool fork_server = false;
  uint64_t forked = 0;
  std::string fork_server_unused;
  // The layers of points the search used, and the programs whose sync operations it could not
  // see: a "no bug" then says what it is not a proof of.
  SearchVisibility visibility;
  // What the words about pruned branches need: the working directory, the isolation, what
  // changed in the directory while the search ran.
  DivergenceContext divergence;
};

// "BUG: deadlock in execution 7 with 1 preemption" and the rest, or "no bug: …".
std::string ExploreTextReport(const SearchSummary& summary);
std::string ExploreJsonReport(const SearchSummary& summary);
// The coverage sentence: "all 20 schedules with ≤ 2 preemptions explored", or how far it got.
std::string CoverageSentence(const SearchSummary& summary);
// The command that replays `trace`: "chess-trace replay PATH".
std::string ReplayCommand(const std::string& trace);

}  // namespace chess::cli
