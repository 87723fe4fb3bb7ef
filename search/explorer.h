// Explorer: the search over an abstract program's schedules (design §4), one execution at a
// time, by one strategy or a portfolio taking turns:
// - `pb`, iterative preemption bounding (BoundedSearch): every schedule with 0 preemptions, then
//   1, then 2…, with state caching — a statement of coverage when nothing is found;
// - `db`, iterative delay bounding (BoundedSearch): the same with delays, the threads a
//   round-robin scheduler skips — one schedule with 0 delays however many threads there are;
// - `random` and `pct` (SampledSearch): one random sample per execution, each from its own seed;
//   a bug they find is searched again with `pb` below its preemption count, so that the one
//   reported has the fewest preemptions (minimization);
// - `portfolio`: pb, pct and random in turn, an execution each.
// Pure logic: the program is run by an ExecutionBackend (the supervisor, or a model in the tests).
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/bounded_execution.h"
#include "search/determinism_check.h"
#include "search/liveness_monitor.h"
#include "search/lock_dependency.h"
#include "search/outcome.h"
#include "search/shard.h"
#include "search/strategy.h"
#include "search/strategy_kind.h"

namespace chess::search {

// A thread of an execution that ended, where it stopped, in the backend's words.
struct StoppedThread {
  uint32_t thread = 0;
  std::string call;                // "openat(AT_FDCWD, \"out.txt\", O_WRONLY|O_CREAT, 0644)"
  std::vector<std::string> stack;  // innermost frame first
};

// How one execution ended, as far as the search cares.
struct ExecutionSummary {
  Outcome outcome = Outcome::kError;
  std::string message;
  // What makes two bugs the same one (--keep-going): the outcome and where it happened, e.g. the
  // failing thread's stack; empty: the outcome alone.
  std::string signature;
  // What the execution found at the names it shares with other executions — a file, directory
  // or socket path a call creates, removes or renames — in order: each call at its entry
  // (which call, which name), then what was there just before it ran (an `exit` event: result
  // 0 and what it was, or the lookup's -errno). Two executions of one schedule that found
  // different things there are why one could not follow the other. Empty when not watched.
  std::vector<SyscallEvent> names;
  // For a divergence: every thread where it stopped.
  std::vector<StoppedThread> threads;
  // The execution's lock dependency relation, when the backend was asked to watch its locks
  // (ExecutionBackend::WatchLocks) and could.
  std::optional<LockObservation> locks;
  // For a bug: what the backend keeps of the execution for its report (its thread states, its
  // output), carried with the bug (FoundBug::summary) and never looked at by the search.
  std::any details;
};

class BranchRunner;

// Runs the program once from the same starting world each time, every scheduling decision taken
// by `strategy`. What else the report of a bug needs of the execution goes into its summary's
// `details`.
class ExecutionBackend {
 public:
  virtual ~ExecutionBackend() = default;
  virtual ExecutionSummary Execute(Strategy& strategy) = 0;
  // Where a bounded search's branches run instead, when they run elsewhere (worker processes,
  // search/branch_run.h); null: here, through Execute.
  virtual BranchRunner* Branches() { return nullptr; }
  // Whether the next executions watch their lock acquisitions, each summary then carrying its
  // LockObservation (prediction). Such executions run here, through Execute, never on the branch
  // runner. Returns whether this backend can watch (it sees the program's locks).
  virtual bool WatchLocks(bool on) {
    (void)on;
    return false;
  }
};

struct ExplorerOptions {
  StrategyKind strategy = StrategyKind::kPb;
  uint32_t preemption_bound = 2;
  uint32_t delay_bound = 2;  // db's
  uint32_t pct_depth = 3;
  uint64_t seed = 0;  // where the randomized strategies' choices come from
  uint64_t max_executions = 100'000;
  bool keep_going = false;  // collect every distinct bug instead of stopping at the first
  bool state_cache = true;  // pb and db prune states they searched before (sound for race-free programs)
  bool minimize = true;     // a randomized strategy's bug is searched again for fewer preemptions
  // Executions a minimization may take (within --max-executions and the time limit): past them
  // the bug is reported with the fewest preemptions found so far.
  uint64_t minimize_budget = 2'000;
  LivenessLimits liveness;
  // The part of the search this process runs (--shard I/N); the whole by default.
  Shard shard;
  // Directed executions tried for each deadlock cycle predicted from the first execution, before
  // the search proper (--predict-budget); 0: no prediction.
  uint32_t predict_budget = 0;
  // The most predicted cycles tried; the rest are listed, untried.
  size_t max_predicted_cycles = 32;
};

struct FoundBug {
  uint64_t execution = 0;  // 1-based, counting every execution run
  ExecutionSummary summary;
  uint32_t preemptions = 0;
  std::vector<size_t> preemption_decisions;  // which decisions were preemptions
  std::optional<uint32_t> delays;            // found by db: the delays its schedule spent
  std::vector<RecordedDecision> schedule;    // every decision, for a replay
  StrategyKind found_by = StrategyKind::kPb;  // pb, db, random or pct
  // The execution's own, for its trace: "pct (depth 3, seed …)".
  std::string execution_strategy{StrategyName(StrategyKind::kPb)};
  // When minimization found this schedule: the randomized one it started from.
  struct Original {
    uint64_t execution = 0;
    uint32_t preemptions = 0;
    std::string execution_strategy;
  };
  std::optional<Original> minimized_from;
  // A deadlock a directed execution made happen: the cycle predicted, as PredictionsResult lists
  // it (its index there), and its words: "mutex_a → mutex_b in worker+0x1c (…), …".
  struct Confirmed {
    size_t cycle = 0;
    uint64_t predicted_from = 1;
    std::string words;
  };
  std::optional<Confirmed> confirmed_prediction;
  // Found by a directed execution (prediction), whether or not it is the deadlock predicted.
  bool directed = false;
};

// A deadlock cycle predicted from an execution, and what the directed executions made of it.
struct PredictedDeadlock {
  PredictedCycle cycle;
  std::string words;  // DescribeCycle
  uint64_t attempts = 0;                 // directed executions run for it
  std::optional<uint64_t> confirmed_in;  // the execution that deadlocked as predicted
  bool past_limit = false;               // not tried: past ExplorerOptions::max_predicted_cycles
};

// What prediction saw and did (ExplorerOptions::predict_budget).
struct PredictionsResult {
  bool watched = false;          // the backend could watch the first execution's locks
  uint64_t predicted_from = 1;   // the execution watched
  uint64_t dependencies = 0;     // in its relation
  std::vector<PredictedDeadlock> cycles;
  uint64_t gated = 0;            // cycles a gate lock rules out (not listed)
  bool cut_short = false;        // the chain budget ran out: longer cycles may be missing
  uint64_t untried = 0;          // cycles past max_predicted_cycles, or left when the search ended
  uint64_t executions = 0;       // directed executions (in ExplorationResult::executions)
  std::map<uint64_t, std::string> names;  // of the cycles' locks and sites
  std::map<uint64_t, LockKind> kinds;     // of the cycles' locks
  // Programs that ran several threads but whose locks prediction could not see (no lock call
  // announced through the preload shim), as the caller names them.
  std::vector<std::string> blind;
};

// Why the search stopped.
enum class SearchEnd : uint8_t {
  kBoundExplored,  // every schedule within the preemption bound ran
  kExhausted,      // every schedule there is ran (none needs more preemptions)
  kPruned,         // every schedule it could follow ran, but branches that diverged were given
                   // up: what they lead to was not searched, so the bound is not covered
  kBug,            // stopped at the first bug (without --keep-going)
  kMaxExecutions,  // --max-executions
  kStopped,        // the caller asked (time limit, Ctrl-C)
  kError,          // an execution ended in chess-trace's own error
};

struct Coverage {
  StrategyKind strategy = StrategyKind::kPb;
  std::optional<uint32_t> bound_completed;  // the highest bound all of whose schedules ran (pb, db)
  uint64_t schedules = 0;  // executions that followed their schedule to the end (bugs included)
  uint64_t pruned = 0;     // branches given up after diverging twice (then never complete)
  uint64_t cache_pruned = 0;  // schedules not run: they start from a state searched before
  uint64_t sampled = 0;    // schedules drawn by random and pct
  bool complete = false;   // every schedule within the bound (or all there are) ran
};

// A branch the search gave up (Coverage::pruned): where its execution parted from the one whose
// decisions it replayed, and what likely made it.
struct PrunedBranch {
  uint64_t execution = 0;  // the second execution that could not follow the branch's prefix
  uint64_t replayed = 0;   // the execution whose decisions it replayed (0: unknown)
  DivergencePoint where;
  std::optional<StoppedThread> stopped;  // the thread that stopped there, as the backend saw it
  // Where the two executions found different things at a shared name before they parted, the
  // last such place (the likely cause): `expected` is the replayed execution's, `found` this
  // one's. None: nothing watched differed.
  std::optional<Difference> cause;
};
// How many pruned branches are described; the rest are counted.
inline constexpr size_t kDescribedPrunedBranches = 5;

struct ExplorationResult {
  std::vector<FoundBug> bugs;
  uint64_t executions = 0;    // every execution run, retries of divergences included
  // Sharded: executions of the trunk another shard owns, run to branch from (not in `executions`).
  uint64_t replayed_prefixes = 0;
  uint32_t split_depth = 0;  // pb sharded: the depth its work was dealt at (0: not dealt yet)
  // pb sharded: the trunk's schedules and the count of items dealt, which every shard of one
  // search must agree on (0: not dealt yet).
  uint64_t trunk_digest = 0;
  // pct: k, the first sample's choice steps (0: not known yet).
  uint64_t pct_steps = 0;
  // The sum of the digests (ScheduleDigest) of the schedules counted in coverage.schedules: the
  // same for the shards of a search together as for the search run whole.
  uint64_t schedules_digest = 0;
  uint64_t step_limited = 0;  // executions that passed --max-steps without a livelock
  uint64_t divergences = 0;   // executions that could not follow their prefix
  std::vector<PrunedBranch> pruned_branches;  // the first kDescribedPrunedBranches
  uint64_t minimizing = 0;    // executions spent minimizing randomized strategies' bugs
  uint32_t bound = 0;         // the round the search was in when it ended
  Coverage coverage;
  SearchEnd end = SearchEnd::kBoundExplored;
  std::optional<ExecutionSummary> error;  // with SearchEnd::kError
  // With ExplorerOptions::predict_budget: the predictions and their confirmation.
  std::optional<PredictionsResult> predictions;
};

struct ExplorerProgress {
  StrategyKind strategy = StrategyKind::kPb;  // the one whose execution just ran
  bool minimizing = false;                     // … searching again for a bug's fewest preemptions
  uint64_t executions = 0;
  uint32_t bound = 0;
  uint64_t done_in_bound = 0;   // schedules run in this round
  uint64_t queued_in_bound = 0; // still to run in this round (more appear as it goes)
  uint64_t queued_next = 0;     // found for the next round
  uint64_t sampled = 0;         // random and pct executions so far
  size_t bugs = 0;
};

struct ExplorerHooks {
  // Asked before each execution: true ends the search (time limit, Ctrl-C).
  std::function<bool()> should_stop;
  // Told after each execution.
  std::function<void(const ExplorerProgress&)> progress;
  // Told of each new distinct bug as soon as it is found (to save its trace before anything
  // can stop the search).
  std::function<void(const FoundBug&)> found;
};

// iGoodlock on one execution's relation: its cycles, each with its words, and what ruled others
// out, into `predictions` (nothing tried yet).
void Predict(const LockObservation& observed, PredictionsResult& predictions);

class Explorer {
 public:
  Explorer(ExplorerOptions options, ExecutionBackend& backend) : options_(std::move(options)), backend_(backend) {}

  ExplorationResult Explore(const ExplorerHooks& hooks = {});

 private:
  // A bug a randomized strategy found, searched again with pb below its preemption count.
  FoundBug Minimize(FoundBug bug, ExplorationResult& result, const ExplorerHooks& hooks);
  // Predicts deadlock cycles from `observed` (execution 1) and runs directed executions to make
  // them happen. Returns false when the search must end (an error, the caller's stop, a bug
  // without --keep-going, the execution limit): `end` says why.
  bool ConfirmPredictions(const LockObservation& observed, ExplorationResult& result, const ExplorerHooks& hooks,
                          std::set<std::string>& seen_bugs, SearchEnd& end);

  ExplorerOptions options_;
  ExecutionBackend& backend_;
};

}  // namespace chess::search
