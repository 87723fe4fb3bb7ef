#include "cli/explore_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cli/atomic_point_learning.h"
#include "cli/command_line.h"
#include "cli/execution.h"
#include "cli/exit_codes.h"
#include "cli/explore_backend.h"
#include "cli/explore_report.h"
#include "cli/messages.h"
#include "cli/race_points.h"
#include "cli/trace_names.h"
#include "cli/report.h"
#include "cli/search_identity.h"
#include "cli/trace_recording.h"
#include "cli/checkpoint.h"
#include "cli/explore_workers.h"
#include "search/explorer.h"
#include "cli/oracle_judge.h"
#include "search/output_oracle.h"
#include "search/replay_strategy.h"
#include "supervisor/world/fork_server.h"
#include "seccomp/filter.h"
#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/world/output_capture.h"

namespace chess::cli {
namespace {

// --out: made if missing (one level, like mkdir).
Result<void> MakeOutDirectory(const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) {
    struct stat info{};
    if (stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return {};
    return Error{"--out " + dir + ": not a directory"};
  }
  return Error{"--out " + dir + ": " + std::strerror(errno)};
}

// "<dir>/<program>-<outcome>-<execution>.trace", with a number added while the name is taken;
// the program is the script an interpreter runs (TraceStem).
std::string UniqueTracePath(const std::string& dir, const std::vector<std::string>& command, search::Outcome outcome,
                            uint64_t execution) {
  const std::string base = TraceStem(command);
  const std::string stem = dir + "/" + base + "-" + std::string(search::OutcomeName(outcome)) + "-" + std::to_string(execution);
  std::string path = stem + ".trace";
  for (int n = 2; access(path.c_str(), F_OK) == 0; ++n) path = stem + "." + std::to_string(n) + ".trace";
  return path;
}

// What ends an execution that does not end by itself: --max-steps, for the search's executions
// and for the one that learns atomic points before them.
search::LivenessLimits Liveness(const ExploreOptions& options) {
  search::LivenessLimits limits;
  limits.max_steps = options.max_steps;
  return limits;
}

// The bound of the bounded search: db's delays, else pb's preemptions.
uint32_t SearchBound(const ExploreOptions& options) {
  if (options.strategy != search::StrategyKind::kDb) return options.preemption_bound;
  return options.delay_bound.value_or(search::ExplorerOptions{}.delay_bound);
}

// The oracles beyond the exit status, ready to judge; the error says what is wrong with them.
Result<OracleJudge> MakeJudge(const ExploreOptions& options, const ExecutionSettings& settings) {
  search::OutputOracleSpec spec;
  spec.fail_on_output = options.fail_on_output;
  spec.check_command = options.check_command;
  if (spec.check_command && spec.check_command->empty()) return Error{"--check: the command is empty"};
  if (options.output_files.size() > trace::kMaxOracleFiles) {
    return Error{"--output-file: at most " + std::to_string(trace::kMaxOracleFiles) + " files (a trace keeps that many)"};
  }
  if (!options.output_files.empty() && !options.same_output) {
    return Error{"--output-file needs --same-output: it names the files every execution must leave as the first did"};
  }
  if (!options.expect_stdout_path.empty()) {
    std::ifstream file(options.expect_stdout_path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) return Error{"--expect-stdout " + options.expect_stdout_path + ": cannot read it"};
    if (bytes.size() > trace::kMaxRecordString) {
      return Error{"--expect-stdout " + options.expect_stdout_path + ": " + std::to_string(bytes.size()) +
                   " bytes, more than the 1 MiB a trace can keep"};
    }
    spec.expected_stdout = std::move(bytes);
    spec.expected_stdout_name = options.expect_stdout_path;
  }
  auto oracle = search::OutputOracle::Make(std::move(spec));
  if (!oracle) return Error{oracle.error()};
  OracleWorld world;
  world.cwd = settings.cwd.empty() ? CurrentDirectory() : settings.cwd;
  world.check_env = OwnEnvironment();
  world.check_timeout = std::chrono::milliseconds(static_cast<int64_t>(options.execution_timeout_seconds * 1000));
  world.expect_exit = options.expect_exit;
  return OracleJudge(std::move(*oracle), std::move(world), options.same_output, options.output_files);
}

class Search {
 public:
  // `atomics`: the atomic points every execution has, as they were learned (--sync-points atomics).
  Search(const ExploreOptions& options, ExecutionSettings settings, PreparedExecution& execution, Messages& messages,
         const std::optional<AtomicPointsSeen>& atomics, OracleJudge judge)
      : options_(options), settings_(std::move(settings)), execution_(execution), messages_(messages),
        backend_(execution, options.expect_exit, std::move(judge)), atomics_(atomics) {
    if (atomics) backend_.UseAtomicPoints(*atomics);
    // The oracles that look at what an execution left do it before the next one starts.
    execution_.options.inspect_world = backend_.Oracles().Inspector();
  }

  int Run();

 private:
  // A schedule run once more into a trace in --out: where the trace goes, and how the run ended
  // (the trace is finished by whoever asked for it).
  struct RecordedRun {
    std::string path;
    supervisor::ExecutionResult result;
    supervisor::CapturedOutput output;
  };
  // Runs `recording`'s schedule with `options`, its output captured, into a new trace in --out
  // named for `outcome` and `execution`; the error says why it could not run.
  Result<RecordedRun> RecordInOut(TraceRecording& recording, search::Outcome outcome, uint64_t execution,
                                  const supervisor::SupervisorOptions& options);
  // Runs the bug's schedule once more, writing its trace and taking the stacks at its
  // preemptions; the trace is proof that the schedule reproduces the bug.
  // `take_run`: the bug's run is the trace's (it was found elsewhere: a worker of -j).
  void SaveTrace(ReportedBug& bug, bool take_run = false);
  // The trace of the execution a Ctrl-C cut short, ending where it was stopped.
  void SaveInterruptedTrace(SearchSummary& summary);
  void ShowProgress(const search::ExplorerProgress& progress);
  // -j: how many workers (1: none, the search runs its executions itself).
  size_t WorkerCount() const;
  // -j: forks the workers before the search's first execution; the error says why it could not.
  Result<void> StartWorkers();
  // --checkpoint / --resume: from now on the search's runs are logged to the file, or taken
  // again from it first; the error says why the file cannot be used (bad input: exit 125).
  Result<void> StartCheckpoint(const SearchIdentity& identity);
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  const ExploreOptions& options_;
  ExecutionSettings settings_;
  PreparedExecution& execution_;
  Messages& messages_;
  SupervisorBackend backend_;
  // The working directory as the search found it: what changed there explains divergences the
  // names the executions watch do not.
  DirectoryListing cwd_at_start_ = DirectoryListing::Take(settings_.cwd);
  std::vector<ReportedBug> bugs_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  double last_progress_ = -1;
  bool time_limited_ = false;
  // --sync-points atomics: the sites every execution has, as they were learned.
  std::optional<AtomicPointsSeen> atomics_;
  std::unique_ptr<SearchWorkers> workers_;
  std::unique_ptr<CheckpointRunner> checkpoint_;
  size_t summary_jobs_ = 1;
  uint64_t ran_ahead_unused_ = 0;
};


size_t Search::WorkerCount() const { return cli::WorkerCount(options_.jobs, execution_.options.visible_affinity); }

Result<void> Search::StartWorkers() {
  const size_t count = WorkerCount();
  if (count <= 1) return {};
  const SearchWorkers::Setup setup{execution_,           options_.expect_exit, options_.state_cache, options_.strategy,
                                   Liveness(options_), backend_.Oracles(),   atomics_};
  auto started =
      SearchWorkers::Start(count, setup, [this](const search::BranchRun& run) { backend_.Absorb(run.observed); });
  if (!started) return Error{started.error()};
  workers_ = std::move(*started);
  backend_.RunBranchesOn(&workers_->Pool());
  return {};
}

Result<void> Search::StartCheckpoint(const SearchIdentity& identity) {
  const bool resuming = !options_.resume_path.empty();
  if (!resuming && options_.checkpoint_path.empty()) return {};
  CheckpointHeader header{ToolVersion(), identity.fields};
  header.identity.emplace_back("shard", options_.shard.Name());
  std::unique_ptr<CheckpointFile> file;
  std::deque<LoggedRun> runs;
  if (resuming) {
    auto opened = CheckpointFile::Open(options_.resume_path);
    if (!opened) return Error{opened.error()};
    if (const std::string differs = CheckpointMismatch(opened->header, header); !differs.empty()) {
      return Error{"--resume " + options_.resume_path + ": the checkpoint is of another search: " + differs};
    }
    if (opened->dropped_bytes > 0) {
      messages_.Say("--resume: the checkpoint's last " + std::to_string(opened->dropped_bytes) +
                    " bytes are a run cut short (the machine stopped while it was written): it runs again");
    }
    file = std::move(opened->file);
    runs = std::move(opened->runs);
  } else {
    auto created = CheckpointFile::Create(options_.checkpoint_path, header);
    if (!created) return Error{created.error()};
    file = std::move(*created);
  }
  const search::LivenessLimits liveness = Liveness(options_);
  checkpoint_ = std::make_unique<CheckpointRunner>(
      std::move(file), std::move(runs), workers_ ? &workers_->Pool() : nullptr,
      [this, liveness](const search::Branch& branch) {
        search::BranchRun run = search::RunBranch(branch, liveness, options_.state_cache, options_.strategy, backend_);
        run.observed = backend_.TakeObservation();
        return run;
      },
      [this](const search::BranchRun& run) { backend_.Absorb(run.observed); },
      [](const search::BranchRun&) { return supervisor::PendingStopSignal() == 0; });
  backend_.RunBranchesOn(checkpoint_.get());
  backend_.RunnerLogsEveryExecution(true);
  return {};
}

Result<Search::RecordedRun> Search::RecordInOut(TraceRecording& recording, search::Outcome outcome, uint64_t execution,
                                                const supervisor::SupervisorOptions& options) {
  if (auto made = MakeOutDirectory(options_.out_dir); !made) return Error{made.error()};
  RecordedRun run;
  run.path = UniqueTracePath(options_.out_dir, settings_.command, outcome, execution);
  if (auto opened = recording.Open(run.path, false, settings_, execution_); !opened) return Error{opened.error()};
  supervisor::OutputCapture capture;
  if (auto begun = capture.Begin(); !begun) return Error{begun.error()};
  run.result = recording.Run(execution_, options);
  run.output = capture.End();
  return run;
}

void Search::SaveTrace(ReportedBug& bug, bool take_run) {
  search::ReplayStrategy replay(bug.found.schedule);
  if (search::EndsAtADecision(bug.found.summary.outcome)) {
    replay.EndWith({bug.found.summary.outcome, bug.found.summary.message});
  }
  TraceRecording recording(replay);
  // (A --same-output whose reference failed has nothing to judge by: no record.)
  if (backend_.Oracles().Oracle().Spec().Any()) {
    recording.SetOracle({options_.expect_exit, backend_.Oracles().Oracle().Spec()});
  }
  supervisor::SupervisorOptions options = execution_.options;
  options.backtrace_before.insert(bug.found.preemption_decisions.begin(), bug.found.preemption_decisions.end());
  Result<RecordedRun> run = RecordInOut(recording, bug.found.summary.outcome, bug.found.execution, options);
  if (!run) {
    bug.trace_problem = "the trace was not saved: " + run.error();
    return;
  }
  supervisor::ExecutionResult& result = run->result;
  // The trace's outcome is the oracle's verdict, as the search judged the execution.
  std::string verdict;
  const search::Outcome replayed = backend_.JudgeWithOracles(result, run->output, &verdict);
  if (replayed == search::Outcome::kWrongOutput || replayed == search::Outcome::kCheckFailed) {
    result.outcome = replayed;
    result.message = verdict;
  }
  if (take_run) bug.run = BugRun{result, OutputTail(run->output, 20)};
  bug.preemption_stacks = result.decision_stacks;
  bug.object_names = recording.ObjectNames();
  bug.instruction_names = result.atomics.instruction_names;
  bug.instruction_locations = result.atomics.instruction_locations;
  // The execution's own strategy goes into the trace: a sample's names its seed.
  if (auto finished = recording.Finish(result, settings_, bug.found.execution_strategy); !finished) {
    bug.trace_problem = "the trace was not saved: " + finished.error();
    return;
  }
  bug.trace_path = run->path;
  if (replayed != bug.found.summary.outcome) {
    bug.trace_problem = "recording the trace, the schedule ended " + std::string(search::OutcomeName(replayed)) +
                        (result.message.empty() ? "" : " (" + result.message + ")") +
                        ", not as when it was found: the program does something chess-trace does not control "
                        "(see chess-trace run --check-determinism)";
  }
}

void Search::SaveInterruptedTrace(SearchSummary& summary) {
  const auto& interrupted = backend_.Interrupted();
  if (!interrupted || interrupted->decisions.empty()) return;
  summary.interrupted_execution = interrupted->execution;
  // One more execution on the way out: the signal that stopped the search must not stop it
  // (another Ctrl-C still does).
  supervisor::ForgetStopSignal();
  search::ReplayStrategy replay(interrupted->decisions);
  replay.EndWith({search::Outcome::kTimeout, "interrupted (" + SignalName(summary.stop_signal) + ") after " +
                                                 std::to_string(interrupted->decisions.size()) +
                                                 " decisions: the trace ends where the search was stopped"});
  TraceRecording recording(replay);
  const Result<RecordedRun> run =
      RecordInOut(recording, search::Outcome::kTimeout, interrupted->execution, execution_.options);
  if (!run) {
    summary.interrupted_trace_problem = run.error();
  } else if (run->result.stopped_by_signal != 0) {
    summary.interrupted_trace_problem = "interrupted again while it was written";
  } else if (auto finished = recording.Finish(run->result, settings_, interrupted->strategy); !finished) {
    summary.interrupted_trace_problem = finished.error();
  } else {
    summary.interrupted_trace = run->path;
  }
}

void Search::ShowProgress(const search::ExplorerProgress& p) {
  if (options_.quiet || !messages_.ToTerminal()) return;
  const double now = Elapsed();
  if (last_progress_ >= 0 && now - last_progress_ < 0.2) return;
  last_progress_ = now;
  char head[96];
  const std::string phase = p.minimizing ? "minimizing" : std::string(search::StrategyName(p.strategy));
  std::snprintf(head, sizeof(head), "exploring (%s): %llu executions, %.1f/s", phase.c_str(),
                static_cast<unsigned long long>(p.executions), now > 0 ? static_cast<double>(p.executions) / now : 0.0);
  std::string line = head;
  const bool db = options_.strategy == search::StrategyKind::kDb;
  if (search::Runs(options_.strategy, search::StrategyKind::kPb) || db || p.minimizing) {
    char bounded[160];
    std::snprintf(bounded, sizeof(bounded), ", bound %u of %u: %llu schedules done, %llu queued (%llu for bound %u)",
                  p.bound, p.minimizing ? p.bound : SearchBound(options_),
                  static_cast<unsigned long long>(p.done_in_bound), static_cast<unsigned long long>(p.queued_in_bound),
                  static_cast<unsigned long long>(p.queued_next), p.bound + 1);
    line += bounded;
  }
  if (p.sampled > 0) line += ", " + std::to_string(p.sampled) + " sampled";
  if (atomics_) {
    line += ", atomic points at " + Plural(atomics_->sites, "site", "sites") + " (of " +
            std::to_string(atomics_->learned_sites) + " executed)";
    if (atomics_->races_looked_for) line += ", race points at " + Plural(atomics_->race_sites, "instruction", "instructions");
  }
  if (p.bugs > 0) line += ", " + std::to_string(p.bugs) + (p.bugs == 1 ? " bug" : " bugs");
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), ", %.0f s", now);
  messages_.Live(line + elapsed);
}

int Search::Run() {
  search::ExplorerOptions options;
  options.strategy = options_.strategy;
  options.preemption_bound = options_.preemption_bound;
  if (options_.delay_bound) options.delay_bound = *options_.delay_bound;
  options.pct_depth = options_.pct_depth;
  options.seed = settings_.seed;
  options.state_cache = options_.state_cache;
  options.minimize = options_.minimize;
  options.max_executions = options_.max_executions;
  options.keep_going = options_.keep_going;
  options.liveness = Liveness(options_);
  options.shard = options_.shard;
  options.predict_budget = options_.predict_budget;
  search::ExplorerHooks hooks;
  hooks.should_stop = [this] {
    if (supervisor::PendingStopSignal() != 0) return true;
    if (options_.time_limit_seconds && Elapsed() >= *options_.time_limit_seconds) time_limited_ = true;
    return time_limited_;
  };
  hooks.progress = [this](const search::ExplorerProgress& progress) { ShowProgress(progress); };
  hooks.found = [this](const search::FoundBug& found) {
    ReportedBug bug;
    bug.found = found;
    // A bug a worker found (-j) carries no run of this process's: the trace's is its run.
    const bool carried = bug.found.summary.details.has_value();
    bug.run = TakeBugRun(bug.found.summary);
    if (supervisor::PendingStopSignal() == 0) SaveTrace(bug, !carried);
    bugs_.push_back(std::move(bug));
  };
  // --same-output's reference: pb's and db's first execution is a non-preemptive one; any other
  // strategy, and -j (whose workers are forked with it), gets one run first, uncounted.
  if (backend_.Oracles().AwaitingReference()) {
    const bool bounded = search::Bounded(options_.strategy);
    if (bounded && WorkerCount() <= 1) {
      backend_.ReferenceFromFirstExecution();
    } else if (auto taken = backend_.RunReference(); !taken) {
      if (const int signal = supervisor::PendingStopSignal(); signal != 0) {
        backend_.EndCapture();
        return 128 + signal;
      }
      // pb and db search on without one, as -j 1 does when its first execution fails: the
      // report names what --same-output could not judge.
      if (!bounded) {
        backend_.EndCapture();
        messages_.Say("--same-output: " + taken.error() + "; run with --strategy pb to search from it");
        return kExitError;
      }
    }
  }
  // Before the search's executions: files the program may write over are named as they were.
  SearchIdentity identity = IdentifySearch(options_, settings_, execution_.spec.path);
  if (auto started = StartWorkers(); !started) {
    backend_.EndCapture();
    messages_.Say(started.error());
    return kExitError;
  }
  if (auto checkpointed = StartCheckpoint(identity); !checkpointed) {
    backend_.RunBranchesOn(nullptr);
    workers_.reset();
    backend_.EndCapture();
    messages_.Say(checkpointed.error());
    return kExitError;
  }
  search::Explorer explorer(options, backend_);
  const search::ExplorationResult result = explorer.Explore(hooks);
  CheckpointSummary checkpointed;
  if (checkpoint_) {
    checkpointed.path = options_.resume_path.empty() ? options_.checkpoint_path : options_.resume_path;
    checkpointed.resumed = !options_.resume_path.empty();
    checkpointed.resumed_executions = checkpoint_->Resumed();
    checkpointed.write_error = checkpoint_->WriteError();
    backend_.RunBranchesOn(workers_ ? &workers_->Pool() : nullptr);
    backend_.RunnerLogsEveryExecution(false);
    checkpoint_.reset();  // its last runs reach the disk
  }
  if (workers_) {
    summary_jobs_ = workers_->Pool().Size();
    ran_ahead_unused_ = workers_->Pool().Unused();
    backend_.RunBranchesOn(nullptr);
    workers_.reset();  // before the bugs' traces are recorded here: the CPUs are free again
  }
  backend_.EndCapture();
  messages_.ClearLive();

  SearchSummary summary;
  summary.result = &result;
  summary.jobs = summary_jobs_;
  summary.ran_ahead_unused = ran_ahead_unused_;
  summary.checkpoint = checkpointed;
  summary.bugs = bugs_;
  summary.preemption_bound = options_.preemption_bound;
  summary.shard = options_.shard;
  summary.identity = std::move(identity);
  if (options_.strategy == search::StrategyKind::kDb) summary.delay_bound = SearchBound(options_);
  summary.seed = settings_.seed;
  summary.pct_depth = options_.pct_depth;
  summary.wall_seconds = Elapsed();
  summary.fork_server = execution_.fork_server != nullptr;
  summary.forked = backend_.Forked();
  summary.visibility = backend_.Visibility().Summarize(settings_.sync_points, options_.focus);
  if (!backend_.ReferenceProblem().empty()) {
    summary.visibility.blind_spots.push_back("--same-output judged nothing: " + backend_.ReferenceProblem());
  }
  if (execution_.fork_server) summary.fork_server_unused = execution_.fork_server->Unused();
  summary.stop_signal = supervisor::PendingStopSignal();
  summary.interrupted = summary.stop_signal != 0;
  if (summary.interrupted) SaveInterruptedTrace(summary);
  summary.time_limited = time_limited_;
  summary.max_executions = options_.max_executions;
  summary.max_steps = options_.max_steps;
  summary.divergence.cwd = settings_.cwd;
  summary.divergence.isolation = backend_.Isolated();
  if (result.coverage.pruned > 0) {
    summary.divergence.cwd_changes = cwd_at_start_.ChangesTo(DirectoryListing::Take(settings_.cwd));
  }
  if (result.end == search::SearchEnd::kError && !summary.interrupted) {
    summary.error = result.error ? result.error->message : "an execution failed";
    summary.unsupported = result.error && result.error->outcome == search::Outcome::kUnsupported;
  }
  messages_.Raw(ExploreTextReport(summary));
  bool ok = true;
  if (!options_.report_path.empty()) {
    std::string error;
    if (!WriteFileAtomically(options_.report_path, ExploreJsonReport(summary), error)) {
      messages_.Say(error);
      ok = false;
    }
  }
  if (summary.interrupted) return 128 + summary.stop_signal;  // 130 for SIGINT, 143 for SIGTERM
  if (!summary.error.empty() || !ok) return kExitError;
  return summary.bugs.empty() ? 0 : kExitBug;
}

}  // namespace

CLI::App* AddExploreCommand(CLI::App& app, ExploreOptions& options) {
  CLI::App* explore = app.add_subcommand(
      "explore",
      "Search PROGRAM's thread schedules systematically for a concurrency bug: every schedule "
      "with no preemption, then every one with 1, then 2 (--preemption-bound), switching threads "
      "at syscalls, at every pthread/C11 sync operation, before the atomic instructions two or "
      "more threads execute and before the plain memory accesses found racing (both learned from a first "
      "execution, which reports each data race it sees; --sync-points). Each execution starts from the same "
      "world (the same stdin bytes, seed, environment, a private /tmp) and its output is "
      "captured. A failing exit status, a fatal signal (an assertion), a deadlock, a livelock, a "
      "thread spinning without yielding, an execution over --execution-timeout, or output the "
      "oracles reject (--fail-on-output, --expect-stdout, --same-output: `wrong-output`; --check: "
      "`check-failed`) is a bug: the "
      "search stops at the first (unless --keep-going), saves it as a trace in --out, and prints "
      "the one command that replays it. Exit status: 0 no bug within the bounds, 1 bug found, "
      "125 error, 126/127 the program cannot be executed / found, 130, 143 or 129 interrupted by "
      "SIGINT (Ctrl-C), SIGTERM or SIGHUP (the report so far is printed).");
  AddProgramOptions(*explore, options.program,
                    {"pid,uts,ipc,mnt,tmp", "where the kernel allows them", "races"});
  std::vector<std::string> strategies;
  for (const auto& [kind, name] : search::kStrategyNames) strategies.emplace_back(name);
  std::string strategy_choices;
  for (const std::string& name : strategies) strategy_choices += (strategy_choices.empty() ? "" : "|") + name;
  // Checked against the names first, so the callback always has one.
  explore->add_option_function<std::string>(
      "--strategy", [&options](const std::string& name) { options.strategy = *search::ParseStrategy(name); },
                      "How schedules are chosen. `pb`: iterative preemption bounding with fair "
                      "scheduling (CHESS) — every schedule with 0 preemptions, then 1, then 2…, a "
                      "statement of coverage when nothing is found. `db`: iterative delay bounding, the "
                      "same by delays — the schedulable threads a round-robin scheduler skips to run "
                      "another (--delay-bound): one schedule with 0 delays however many threads there "
                      "are, so it reaches deeper into programs with many threads or yield loops. `pct`: random priorities with "
                      "--pct-depth − 1 priority changes per execution (finds a bug that needs d "
                      "ordering constraints with probability ≥ 1/(n·k^(d−1)) per execution, for n "
                      "threads and k steps). `random`: a random walk. `portfolio`: pb, pct and random "
                      "in turn, an execution each. Random choices come from --seed; a bug found by pct "
                      "or random is searched again with pb for the fewest preemptions (--no-minimize)")
      ->type_name(strategy_choices)
      ->check(OneOf(strategies))
      ->default_str(std::string(search::StrategyName(options.strategy)));
  explore->add_option("--preemption-bound", options.preemption_bound,
                      "Explore every schedule with at most C preemptions (switches away from a thread "
                      "that could have gone on, and deadlines fired early); most bugs need 1 or 2")
      ->type_name("C")
      ->check(WholeNumber(0, 20))
      ->capture_default_str();
  explore->add_option("--delay-bound", options.delay_bound,
                      "--strategy db: explore every schedule with at most D delays (a delay: the "
                      "round-robin scheduler — the thread that ran last while it can, then the next one "
                      "in creation order — skips a schedulable thread; a deadline fired early is one)")
      ->type_name("D")
      ->check(WholeNumber(0, 20))
      ->default_str(std::to_string(search::ExplorerOptions{}.delay_bound));
  explore->add_option("--pct-depth", options.pct_depth,
                      "PCT's depth d: the ordering constraints a bug may need (d − 1 priority changes "
                      "per execution)")
      ->type_name("D")
      ->check(WholeNumber(1, 20))
      ->capture_default_str();
  explore->add_flag("--state-cache,!--no-state-cache", options.state_cache,
                    "pb and db (default: on): skip schedules that go on from a state already searched (the "
                    "same happens-before graph of sync operations, the same fairness state; for db also the "
                    "same thread last). Sound when "
                    "threads share memory only under their locks; --no-state-cache for a program with "
                    "deliberate data races");
  explore->add_flag("!--no-minimize", options.minimize,
                    "Report a bug found by pct or random as it was found, without searching for the "
                    "schedule with the fewest preemptions that fails the same way");
  explore->add_flag("!--no-fork-server", options.fork_server,
                    "Start every execution by execve. By default the first execution leaves a copy of "
                    "the program stopped at its first thread creation (when nothing before it would "
                    "differ in a copy: no open files but 0-2, no shared memory, no signals), and "
                    "the others are forked from it, skipping the loader and start-up");
  explore->add_option("-j,--jobs", options.jobs,
                      "Run the search's executions on N worker processes, each on a CPU of its own (0: one per CPU "
                      "chess-trace may use). The search takes their executions in the order one process would run "
                      "them, so the executions, the coverage and the bug reported are those of -j 1; a worker runs "
                      "ahead on what the search will need next (pb's and db's next branches, pct's and random's "
                      "next samples), and what it ran past the end of the search is reported as "
                      "`ran_ahead_unused`. Not with --strategy portfolio. Default: 1")
      ->type_name("N")
      ->check(CLI::Range(0u, 1024u));
  explore->add_option("--max-executions", options.max_executions, "Stop after N executions")
      ->type_name("N")
      ->check(AtLeastOne())
      ->capture_default_str();
  explore->add_option("--time-limit", options.time_limit_seconds,
                      "Stop the search after S seconds of wall time (default: none)")
      ->type_name("S")
      ->check(PositiveAmount("seconds"));
  explore->add_option("--execution-timeout", options.execution_timeout_seconds,
                      "An execution that takes longer than S seconds of wall time is a bug (`timeout`)")
      ->type_name("S")
      ->check(PositiveAmount("seconds"))
      ->capture_default_str();
  explore->add_option("--max-steps", options.max_steps,
                      "An execution may take N scheduling decisions. Past them it is a `livelock` "
                      "when every thread still running kept yielding (a bug), and a `step-limit` "
                      "otherwise (counted, not a bug)")
      ->type_name("N")
      ->check(AtLeastOne())
      ->capture_default_str();
  explore->add_option("--max-atomic-points", options.max_atomic_points,
                      "--sync-points atomics and races: an execution parks at its first N atomic operations and racing "
                      "accesses at most; "
                      "the later ones run through without being points, and the report says the search "
                      "sampled them (a program with millions of atomic operations still finishes)")
      ->type_name("N")
      ->check(AtLeastOne())
      ->capture_default_str();
  explore->add_option("--expect-exit", options.expect_exit,
                      "The program's exit status when it works (a test that exits 1 on success, say)")
      ->type_name("N")
      ->check(WholeNumber(0, 255))
      ->capture_default_str();
  explore->add_option("--fail-on-output", options.fail_on_output,
                      "An execution that exits as --expect-exit says but has a line of stdout or stderr matching "
                      "REGEX (ECMAScript, searched within each line) is a bug: `wrong-output`, its report quoting "
                      "the lines. For a program that prints its failures instead of exiting with them: "
                      "--fail-on-output ERROR, --fail-on-output '^(FAIL|WARNING: ThreadSanitizer)'. The trace "
                      "keeps REGEX, and replay judges with it")
      ->type_name("REGEX")
      ->check(CLI::Validator(
          [](std::string& regex) {
            search::OutputOracleSpec spec;
            spec.fail_on_output = regex;
            auto oracle = search::OutputOracle::Make(spec);
            if (oracle) return std::string();
            // CLI11 names the option itself.
            const std::string prefix = "--fail-on-output ";
            const std::string& error = oracle.error();
            return error.rfind(prefix, 0) == 0 ? error.substr(prefix.size()) : error;
          },
          "REGEX"));
  explore->add_option("--expect-stdout", options.expect_stdout_path,
                      "An execution that exits as --expect-exit says but whose stdout is not FILE's contents, "
                      "byte for byte, is a bug: `wrong-output`, its report quoting the first line that differs "
                      "(at most 1 MiB; the trace keeps the bytes, and replay judges with them)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  CLI::Option* same_output = explore->add_flag(
      "--same-output", options.same_output,
      "An execution that exits as --expect-exit says but whose stdout, or any --output-file, differs from the "
      "first, non-preemptive execution's is a bug: `wrong-output`, its report quoting the first line that "
      "differs. For a program whose wrong result is printed or written, not asserted (a missing barrier that "
      "changes a sum). The reference is pb's or db's first execution; other strategies run it once first, uncounted. "
      "The trace keeps the reference's bytes, and replay judges with them");
  explore->add_option("--output-file", options.output_files,
                      "With --same-output: a file every execution must leave as the reference did (or not leave, "
                      "if it did not), read where the execution wrote it — its private /tmp and working directory "
                      "included (at most 1 MiB each). Repeat for more files")
      ->type_name("PATH")
      ->needs(same_output);
  same_output->excludes("--expect-stdout");
  explore->add_option("--check", options.check_command,
                      "After an execution that exits as --expect-exit says, run CMD with /bin/sh, natively and "
                      "untraced, in the execution's world: its working directory and its private /tmp, as it left "
                      "them. A non-zero exit is a bug: `check-failed`, its report quoting what CMD printed. For "
                      "state no output shows: --check 'cmp out.db expected.db', --check './verify /tmp/queue'. "
                      "The trace keeps CMD, and replay runs it the same way")
      ->type_name("CMD");
  explore->add_option("--focus", options.focus,
                      "Search the threads of NAME only (repeat for more programs): a process is NAME's when "
                      "the file it exec'd or its executable is called NAME (python3 for a script run by "
                      "`python3 t.py`; a wrapper script's own name). The other processes — a version "
                      "manager's shell shims, env, a test runner's script — run as they would without a search: "
                      "no preemptions, no permutations among them, no deadlines fired early. For a wrapper "
                      "that starts many short-lived processes before the program under test")
      ->type_name("NAME")
      ->allow_extra_args(false)
      ->take_all();
  explore->add_option_function<std::string>(
              "--shard", [&options](const std::string& text) { options.shard = *search::ParseShard(text).shard; },
              "Run part I of N of the search, for N processes or machines that split it (a CI matrix, a "
              "Kubernetes Indexed Job, GNU parallel, a Slurm array). The parts are dealt by the program, the "
              "strategy, the bound and the seed, never by timing: with --no-state-cache, --shard 1/N … "
              "--shard N/N together run every schedule of the search exactly once; with state caching each "
              "prunes only at states it searched itself, so together they run at least as many. Each shard "
              "first runs the first execution (and, when it offers too few alternatives to deal, up to two "
              "levels below it) to branch from: `replayed_prefixes` in the report, not in its executions. "
              "--max-executions and --time-limit apply to each shard's own part. Give every shard the same "
              "program and options and its own --report, then `chess-trace merge` the reports "
              "(docs/scale.md)")
      ->type_name("I/N")
      ->check(CLI::Validator(
          [](std::string& text) {
            const search::ShardParse parsed = search::ParseShard(text);
            return parsed.shard ? std::string() : parsed.error;
          },
          ""));
  explore->add_option("--checkpoint", options.checkpoint_path,
                      "Save the search to FILE (a new file) as it goes, an execution at a time, so that --resume FILE "
                      "continues it after a Ctrl-C, --time-limit, a SIGKILL or a crash of the machine (what reached "
                      "the disk: at most the last 5 s are lost). pb and db (docs/scale.md)")
      ->type_name("FILE");
  explore->add_option("--resume", options.resume_path,
                      "Continue the search saved in FILE by --checkpoint, with the same program and options "
                      "(--time-limit may differ): its executions are taken again without running them — the "
                      "state cache, the rounds and the bugs come back as they were — then the search goes on, "
                      "still saving to FILE. Its executions count and coverage are the whole search's")
      ->type_name("FILE");
  explore->add_option("--predict-budget", options.predict_budget,
                      "Predict deadlocks from the first execution and try to make each happen before the search "
                      "goes on: the first execution's lock acquisitions (the preload shim's: --sync-points auto or "
                      "more) give the lock-order cycles that could deadlock in another schedule (iGoodlock), and up "
                      "to N directed executions per cycle pause each thread where it is about to take the cycle's "
                      "next lock until the others are in place (DeadlockFuzzer). A cycle made to happen is a "
                      "deadlock with a trace like any other; one that was not is listed as a prediction, never a "
                      "bug. Directed executions count in the executions, not in the schedules explored, and run in "
                      "the search's process under -j. 0: no prediction. Not with --checkpoint (which logs every "
                      "execution in order) or in shards but the first. Default: 5")
      ->type_name("N");
  explore->add_flag("--keep-going", options.keep_going,
                    "Do not stop at the first bug: collect every distinct one (by outcome and stacks)");
  explore->add_option("--out", options.out_dir, "Where the traces of bugs go (made if missing)")
      ->type_name("DIR")
      ->capture_default_str();
  explore->add_option("--report", options.report_path, "Write a JSON report (schema 2) to FILE")->type_name("FILE");
  explore->add_flag("--quiet", options.quiet, "No progress line on the terminal");
  return explore;
}

constexpr double kExploreExternalWaitSeconds = 5;

int ExploreCommand(const ExploreOptions& options) {
  Messages messages;
  if (!messages.UseLog(options.program.log_path)) return kExitError;
  if (options.delay_bound && options.strategy != search::StrategyKind::kDb) {
    messages.Say("--delay-bound bounds --strategy db only (pb's bound is --preemption-bound)");
    return kExitError;
  }
  if (options.jobs != 1 && options.strategy == search::StrategyKind::kPortfolio) {
    messages.Say("-j splits one strategy's work between workers; the portfolio's engines take turns in one "
                 "process: run -j with --strategy pb, pct or random, or give the portfolio's samples to "
                 "separate processes with --shard I/N");
    return kExitError;
  }
  if (!options.checkpoint_path.empty() || !options.resume_path.empty()) {
    const std::string flag = options.resume_path.empty() ? "--checkpoint" : "--resume";
    if (!options.checkpoint_path.empty() && !options.resume_path.empty()) {
      messages.Say("--resume FILE goes on saving to FILE: give --checkpoint only to start a new checkpoint");
      return kExitError;
    }
    if (!search::Bounded(options.strategy)) {
      messages.Say(flag + " saves a pb or db search; --strategy " + std::string(search::StrategyName(options.strategy)) +
                   " cannot be saved yet: bound its work with --max-executions or --time-limit instead");
      return kExitError;
    }
    if (options.same_output) {
      messages.Say(flag + ": --same-output's reference is not saved in a checkpoint yet; judge the output with "
                   "--expect-stdout or --fail-on-output");
      return kExitError;
    }
    struct stat existing;
    if (!options.checkpoint_path.empty() && lstat(options.checkpoint_path.c_str(), &existing) == 0) {
      messages.Say("--checkpoint " + options.checkpoint_path + ": the file exists; continue its search with --resume " +
                   options.checkpoint_path + ", or remove it to start over");
      return kExitError;
    }
    if (!options.resume_path.empty() && access(options.resume_path.c_str(), R_OK | W_OK) != 0) {
      messages.Say("--resume " + options.resume_path + ": " + std::strerror(errno) +
                   " (it must be a checkpoint this user can read and extend)");
      return kExitError;
    }
  }
  search::SetSyscallNamer([](int64_t nr) { return seccomp::SyscallName(nr); });
  std::optional<ExecutionSettings> built = BuildSettings(options.program, "pid,uts,ipc,mnt,tmp", SyncPoints::kRaces, messages);
  if (!built) return kExitError;
  ExecutionSettings settings = std::move(*built);
  // Where the results go is checked before the first execution: a search that found a bug must
  // not end as an error because its report had nowhere to go.
  if (auto checked = CheckDirectoryDestination("--out", options.out_dir); !checked) {
    messages.Say(checked.error());
    return kExitError;
  }
  // Made before the first execution, not when the first trace is saved: the program may list its
  // working directory (Python's imports do, with it on sys.path), and the run that records a
  // bug's trace must find it as the executions of the search did.
  if (auto made = MakeOutDirectory(options.out_dir); !made) {
    messages.Say(made.error());
    return kExitError;
  }
  if (!options.report_path.empty()) {
    if (auto checked = CheckFileDestination("--report", options.report_path); !checked) {
      messages.Say(checked.error());
      return kExitError;
    }
  }
  Result<OracleJudge> judge = MakeJudge(options, settings);
  if (!judge) {
    messages.Say(judge.error());
    return kExitError;
  }
  // A search must never wait forever on the outside world: such an execution is a `hang`.
  if (!settings.external_wait_seconds) settings.external_wait_seconds = kExploreExternalWaitSeconds;
  if (settings.command.empty()) {
    messages.Say("no program given. Usage: chess-trace explore [OPTIONS] -- PROGRAM [ARGS...]");
    return kExitError;
  }
  // Every execution reads the same bytes.
  if (!CaptureInput(settings, messages)) return kExitError;
  auto prepared = PrepareExecution(settings, messages);
  if (auto* code = std::get_if<int>(&prepared)) return *code;
  PreparedExecution& execution = std::get<PreparedExecution>(prepared);
  execution.options.slice_yields = false;
  execution.options.focus = options.focus;
  // What each execution finds at the names it creates, removes or renames: where a later one
  // that cannot follow it found otherwise is the likely cause.
  execution.options.watch_names = true;
  if (options.fork_server) {
    execution.fork_server = std::make_unique<supervisor::ForkServer>();
    execution.options.fork_server = execution.fork_server.get();
  }
  execution.options.execution_timeout =
      std::chrono::nanoseconds(static_cast<int64_t>(options.execution_timeout_seconds * 1e9));
  supervisor::InstallStopHandlers();
  // The atomic instructions that run only alone are learned once, before the search, and with
  // races the data races; every other atomic instruction, and both of every race's, is a point of
  // every execution (traces keep the plan, so a replay parks at the same ones).
  std::optional<AtomicPointsSeen> atomics;
  if (settings.sync_points >= SyncPoints::kAtomics) {
    AtomicPointLearning learning(options.max_atomic_points, settings.sync_points);
    // On the progress line, not in the report, whose first line names the outcome (its
    // "scheduling points:" line and --report give the sites).
    const bool progress = !options.quiet;
    if (progress) messages.Live("learning the atomic points: one execution before the search");
    learning.Learn(execution, Liveness(options));
    if (progress) messages.Live(learning.Sentence() + learning.FailureNote());
    // A race is a finding, not progress: said before the search, whose report starts with its
    // outcome.
    for (const search::ObservedRace& race : learning.Races()) messages.Say(RaceLine(race));
    execution.options.atomic_points = learning.Plan();
    settings.atomic_points = learning.Plan();
    atomics = learning.Seen();
  }
  return Search(options, std::move(settings), execution, messages, atomics, std::move(*judge)).Run();
}

}  // namespace chess::cli
