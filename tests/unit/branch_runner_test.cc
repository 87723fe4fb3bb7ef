// A bounded search whose branches run ahead, out of order — as worker processes run them (-j) —
// comes to exactly what the search run one execution at a time comes to: the same executions,
// schedules, state-cache pruning, coverage, bugs (the same first one, at the same execution
// number) and schedule digests; with --max-executions, --keep-going, delay bounding and shards.
#include "search/branch_run.h"

#include "search/branch_codec.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::search {
namespace {

using test_support::Alternation;
using test_support::Independent;
using test_support::ModelBackend;
using test_support::ModelProgram;
using test_support::ExpectSameExploration;
using test_support::Step;

// Runs every branch it is told of at once, the last announced first (the most out of order a
// pool of workers could be), and hands each over when the search asks for it. Requests and runs
// go through the codec, as they go through a worker's pipe.
class AheadRunner final : public BranchRunner {
 public:
  AheadRunner(const ModelProgram& program, const ExplorerOptions& options, StrategyKind bounding)
      : backend_(program), options_(options), bounding_(bounding) {}

  BranchRun Run(const Branch& branch, bool retry) override {
    ++asked_;
    if (!retry) {
      if (auto ran = ran_.find(branch.serial); ran != ran_.end()) {
        BranchRun run = std::move(ran->second);
        ran_.erase(ran);
        ++taken_from_ahead_;
        return run;
      }
    }
    return RunInWorker(branch, retry);
  }

  void Upcoming(const std::vector<const Branch*>& next) override {
    for (auto item = next.rbegin(); item != next.rend(); ++item) {
      if (ran_.count((*item)->serial) == 0) ran_.emplace((*item)->serial, RunInWorker(**item, false));
    }
  }

  void Dropped(uint64_t serial) override {
    ++dropped_;
    ran_.erase(serial);
  }

  uint64_t asked_ = 0;
  uint64_t taken_from_ahead_ = 0;
  uint64_t dropped_ = 0;

 private:
  BranchRun RunInWorker(const Branch& branch, bool retry) {
    const std::optional<BranchRequest> request = DecodeBranchRequest(EncodeBranchRequest(branch, retry));
    EXPECT_TRUE(request.has_value());
    EXPECT_EQ(request->serial, branch.serial);
    BranchRun run = RunBranch(request->branch, options_.liveness, options_.state_cache, bounding_, backend_);
    std::optional<std::pair<uint64_t, BranchRun>> decoded = DecodeBranchRun(EncodeBranchRun(branch.serial, run));
    EXPECT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->first, branch.serial);
    return std::move(decoded->second);
  }

  ModelBackend backend_;
  ExplorerOptions options_;
  StrategyKind bounding_;
  std::map<uint64_t, BranchRun> ran_;
};

class AheadBackend final : public ExecutionBackend {
 public:
  AheadBackend(const ModelProgram& program, const ExplorerOptions& options)
      : inner_(program), runner_(program, options, options.strategy) {}
  ExecutionSummary Execute(Strategy& strategy) override { return inner_.Execute(strategy); }
  BranchRunner* Branches() override { return &runner_; }

  ModelBackend inner_;
  AheadRunner runner_;
};

// Three threads on their own counters and one shared: states repeat, so the cache prunes.
ModelProgram Counters() {
  ModelProgram program;
  for (uint64_t t = 0; t < 3; ++t) {
    std::vector<Step> steps(3);
    steps[0].resource = 10 + t;
    steps[1].resource = 1;
    steps[2].resource = 10 + t;
    program.threads.push_back(steps);
  }
  return program;
}

// Counters, failing whenever thread 2 takes the shared counter first.
ModelProgram CountersWithBugs() {
  ModelProgram program = Counters();
  program.judge = [](const std::vector<std::pair<uint32_t, size_t>>& order) {
    for (const auto& [thread, step] : order) {
      if (step == 1) return thread == 2 ? Outcome::kSignal : Outcome::kOk;
    }
    return Outcome::kOk;
  };
  return program;
}

struct Case {
  const char* name;
  ModelProgram program;
  ExplorerOptions options;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (StrategyKind strategy : {StrategyKind::kPb, StrategyKind::kDb}) {
    for (bool cache : {false, true}) {
      ExplorerOptions options;
      options.strategy = strategy;
      options.state_cache = cache;
      options.preemption_bound = 3;
      options.delay_bound = 3;
      cases.push_back({"independent 3x2", Independent(3, 2), options});
      cases.push_back({"counters", Counters(), options});
      cases.push_back({"alternation", Alternation(), options});
      ExplorerOptions keep_going = options;
      keep_going.keep_going = true;
      cases.push_back({"counters with bugs, keep going", CountersWithBugs(), keep_going});
      cases.push_back({"counters with bugs, first", CountersWithBugs(), options});
      ExplorerOptions limited = options;
      limited.max_executions = 40;
      cases.push_back({"independent 3x3, 40 executions", Independent(3, 3), limited});
      ExplorerOptions shard = options;
      shard.shard = Shard{2, 3};
      cases.push_back({"counters, shard 2/3", Counters(), shard});
    }
  }
  return cases;
}

TEST(BranchRunnerTest, BranchesRunAheadAndOutOfOrderComeToWhatOneAtATimeComesTo) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(c.name) + ", " + std::string(StrategyName(c.options.strategy)) +
                 (c.options.state_cache ? ", state cache" : ", no state cache"));
    ModelBackend plain(c.program);
    const ExplorationResult one = Explorer(c.options, plain).Explore();
    AheadBackend ahead(c.program, c.options);
    const ExplorationResult parallel = Explorer(c.options, ahead).Explore();
    ExpectSameExploration(one, parallel);
    // It did run ahead: nearly every execution the search took in had run before it was asked.
    EXPECT_GT(ahead.runner_.taken_from_ahead_ * 2, ahead.runner_.asked_);
  }
}

TEST(BranchRunnerTest, TheStateCachePrunesAtCommitAsItDidDuringTheExecution) {
  // With the cache, fewer executions than without, the same schedules' coverage statement.
  ExplorerOptions options;
  options.preemption_bound = 2;
  ModelBackend cached(Counters());
  const ExplorationResult with_cache = Explorer(options, cached).Explore();
  options.state_cache = false;
  ModelBackend uncached(Counters());
  const ExplorationResult without = Explorer(options, uncached).Explore();
  EXPECT_LT(with_cache.executions, without.executions);
  EXPECT_GT(with_cache.coverage.cache_pruned, 0u);
  EXPECT_TRUE(with_cache.coverage.complete);
  EXPECT_EQ(with_cache.coverage.bound_completed, without.coverage.bound_completed);
}

TEST(BranchRunnerTest, WorkLeftOutForTheLimitIsToldToTheRunner) {
  ExplorerOptions options;
  options.state_cache = false;
  options.max_executions = 10;
  AheadBackend ahead(Independent(3, 3), options);
  const ExplorationResult result = Explorer(options, ahead).Explore();
  EXPECT_EQ(result.executions, 10u);
  EXPECT_EQ(result.end, SearchEnd::kMaxExecutions);
  EXPECT_GT(ahead.runner_.dropped_, 0u);
}

TEST(BranchCodecTest, EveryFieldSurvivesAndDamageDecodesToNothing) {
  BranchRun run;
  run.summary.outcome = Outcome::kDeadlock;
  run.summary.message = "deadlock\n\0 between threads";
  run.summary.signature = "sig";
  SyscallEvent event;
  event.thread = ThreadId{3};
  event.syscall = 257;
  event.exit = true;
  event.result = -2;
  event.sample = "/tmp/x";
  event.ip = 0x401000;
  run.summary.names = {event};
  run.summary.threads = {StoppedThread{2, "futex(0x4040, FUTEX_WAIT)", {"#0 main", "#1 start"}}};
  RecordedDecision decision;
  decision.current = ThreadId{1};
  decision.stop = StopReason::kBlocked;
  decision.point.op = OpKind::kAtomic;
  decision.point.instruction = 0x1234;
  decision.point.resource = 0xdead;
  decision.picked = ThreadId{2};
  decision.fired_early = true;
  run.decisions = {decision, RecordedDecision{}};
  run.alternatives = {{1, ThreadId{4}, 2}};
  run.visits = {{1, 77, {4, true}, 1}};
  run.preemptions = 5;
  run.spent = 6;
  run.preemption_decisions = {0, 1};
  run.strategy = "db";
  DivergencePoint where;
  where.decision = 1;
  where.expected = decision;
  where.found_thread = ThreadId{9};
  where.message = "parted";
  run.diverged = where;
  run.observed = std::string("\x01\x02\0tail", 7);
  run.choice_steps = 1234;

  const std::string bytes = EncodeBranchRun(42, run);
  const auto decoded = DecodeBranchRun(bytes);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->first, 42u);
  const BranchRun& back = decoded->second;
  EXPECT_EQ(back.summary.outcome, Outcome::kDeadlock);
  EXPECT_EQ(back.summary.message, run.summary.message);
  ASSERT_EQ(back.summary.names.size(), 1u);
  EXPECT_EQ(back.summary.names[0].result, -2);
  EXPECT_EQ(back.summary.names[0].sample, "/tmp/x");
  EXPECT_EQ(back.summary.names[0].ip, 0x401000u);
  ASSERT_EQ(back.summary.threads.size(), 1u);
  EXPECT_EQ(back.summary.threads[0].stack, run.summary.threads[0].stack);
  EXPECT_EQ(ScheduleDigest(back.decisions), ScheduleDigest(run.decisions));
  EXPECT_EQ(back.decisions[0].point.instruction, 0x1234u);
  EXPECT_EQ(back.decisions[0].stop, StopReason::kBlocked);
  EXPECT_TRUE(back.decisions[0].fired_early);
  EXPECT_FALSE(back.decisions[1].current.has_value());
  ASSERT_EQ(back.alternatives.size(), 1u);
  EXPECT_EQ(back.alternatives[0].cost, 2u);
  ASSERT_EQ(back.visits.size(), 1u);
  EXPECT_EQ(back.visits[0].state, 77u);
  EXPECT_TRUE(back.visits[0].last == (StateCache::Last{4, true}));
  EXPECT_EQ(back.preemption_decisions, run.preemption_decisions);
  ASSERT_TRUE(back.diverged.has_value());
  EXPECT_EQ(back.diverged->found_thread, ThreadId{9});
  EXPECT_EQ(back.diverged->expected->picked, ThreadId{2});
  EXPECT_EQ(back.observed, run.observed);
  EXPECT_EQ(back.choice_steps, 1234u);
  // Cut anywhere, or with a byte more, it is not a message.
  for (size_t size = 0; size < bytes.size(); ++size) EXPECT_FALSE(DecodeBranchRun(bytes.substr(0, size))) << size;
  EXPECT_FALSE(DecodeBranchRun(bytes + "x"));

  Branch branch;
  branch.path = std::make_shared<ExecutionPath>(ExecutionPath{3, {decision, decision, decision}, {}});
  branch.decision = 1;
  branch.choice = ThreadId{7};
  branch.spent = 2;
  branch.serial = 99;
  const std::string request_bytes = EncodeBranchRequest(branch, true);
  const auto request = DecodeBranchRequest(request_bytes);
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->serial, 99u);
  EXPECT_TRUE(request->retry);
  EXPECT_EQ(request->branch.decision, 1u);
  EXPECT_EQ(request->branch.choice, ThreadId{7});
  EXPECT_EQ(request->branch.spent, 2u);
  EXPECT_EQ(request->branch.path->decisions.size(), 2u);  // the prefix only
  for (size_t size = 0; size < request_bytes.size(); ++size) EXPECT_FALSE(DecodeBranchRequest(request_bytes.substr(0, size)));

  const SampleRequest sample{StrategyKind::kPct, 17, 0xfeed, 3, 412};
  const std::string sample_bytes = EncodeSampleRequest(5, sample, false);
  const auto sample_request = DecodeSampleRequest(sample_bytes);
  ASSERT_TRUE(sample_request.has_value());
  EXPECT_EQ(sample_request->serial, 5u);
  EXPECT_FALSE(sample_request->retry);
  EXPECT_EQ(sample_request->sample.kind, StrategyKind::kPct);
  EXPECT_EQ(sample_request->sample.index, 17u);
  EXPECT_EQ(sample_request->sample.seed, 0xfeedu);
  EXPECT_EQ(sample_request->sample.pct_depth, 3u);
  EXPECT_EQ(sample_request->sample.estimated_steps, 412u);
  for (size_t size = 0; size < sample_bytes.size(); ++size) EXPECT_FALSE(DecodeSampleRequest(sample_bytes.substr(0, size)));
  // Only pct and random are sampled.
  EXPECT_FALSE(DecodeSampleRequest(EncodeSampleRequest(5, SampleRequest{StrategyKind::kPb, 0, 0, 0, 0}, false)));
}

}  // namespace
}  // namespace chess::search
