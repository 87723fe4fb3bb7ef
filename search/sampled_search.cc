#include "search/sampled_search.h"

#include <algorithm>
#include <memory>

#include "search/mix.h"
#include "search/sampled_execution.h"

namespace chess::search {

SampledSearch::SampledSearch(StrategyKind kind, uint64_t seed, uint32_t pct_depth, LivenessLimits liveness, Shard shard)
    : kind_(kind), seed_(seed), pct_depth_(pct_depth), liveness_(liveness), shard_(shard) {}

BranchRun RunSample(const SampleRequest& sample, LivenessLimits liveness, ExecutionBackend& backend) {
  const uint64_t seed = SampledSearch::SampleSeed(sample.kind, sample.seed, sample.index);
  std::unique_ptr<SampledExecution> execution;
  if (sample.kind == StrategyKind::kPct) {
    execution = std::make_unique<PctExecution>(seed, liveness, sample.pct_depth, sample.estimated_steps);
  } else {
    execution = std::make_unique<RandomWalk>(seed, liveness);
  }
  BranchRun run;
  run.summary = backend.Execute(*execution);
  run.decisions = execution->Decisions();
  run.preemptions = execution->Preemptions();
  run.preemption_decisions = execution->PreemptionDecisions();
  run.strategy = execution->Describe();
  run.choice_steps = execution->ChoiceSteps();
  return run;
}

BranchRun BranchRunner::RunSample(const SampleRequest& sample, bool retry) {
  (void)sample;
  (void)retry;
  BranchRun run;
  run.summary.outcome = Outcome::kError;
  run.summary.message = "this search's runner runs the branches of pb and db only, not samples of pct or random";
  return run;
}

uint64_t SampledSearch::SampleSeed(StrategyKind kind, uint64_t seed, uint64_t index) {
  // Each strategy its own stream, so that a portfolio's pct and random draw different samples.
  return Mix64(Mix64(seed, static_cast<uint64_t>(kind) + 1), index);
}

EngineStep SampledSearch::Step(ExecutionBackend& backend, ExplorationResult& result) {
  // Sample i is the shard's that i is dealt to; PCT's first is run by every shard, for its length.
  const bool needs_first = kind_ == StrategyKind::kPct && !first_steps_;
  while (!shard_.Owns(samples_) && !(needs_first && samples_ == 0)) ++samples_;
  const uint64_t index = samples_++;
  const bool owned = shard_.Owns(index);
  // Sample 0 drawn again after a divergence runs anew, never from a run made ahead.
  const bool retry = index == 0 && first_retries_ > 0;
  BranchRunner* runner = backend.Branches();
  BranchRun run = runner != nullptr ? runner->RunSample(Request(index), retry) : RunSample(Request(index), liveness_, backend);
  EngineStep step;
  step.summary = std::move(run.summary);
  ++(owned ? result.executions : result.replayed_prefixes);
  // k from a first sample that ran as scheduled: one that diverged (a timing outside the
  // schedule) is drawn again, a few times, so that every shard gets the same k.
  const bool diverged = step.summary.outcome == Outcome::kDivergence;
  if (!first_steps_ && index == 0 && diverged && ++first_retries_ < kFirstSampleRetries) {
    samples_ = 0;
  } else if (!first_steps_) {
    first_steps_ = run.choice_steps;
    if (kind_ == StrategyKind::kPct) result.pct_steps = *first_steps_;
  }
  Announce(backend);
  // A sample has no prefix to follow: a divergence means the program did something chess-trace
  // does not control; the sample is simply lost.
  if (step.summary.outcome == Outcome::kDivergence) {
    ++result.divergences;
    step.followed = false;
    return step;
  }
  if (EndsTheSearch(step.summary.outcome)) return step;
  // The first sample run for its length alone: another shard's to count and report.
  if (!owned) return step;
  ++result.coverage.schedules;
  ++result.coverage.sampled;
  result.schedules_digest += ScheduleDigest(run.decisions);
  if (step.summary.outcome == Outcome::kStepLimit) ++result.step_limited;
  if (IsBug(step.summary.outcome)) {
    FoundBug bug;
    bug.execution = result.executions;
    bug.summary = step.summary;
    bug.preemptions = run.preemptions;
    bug.preemption_decisions = std::move(run.preemption_decisions);
    bug.schedule = std::move(run.decisions);
    bug.found_by = kind_;
    bug.execution_strategy = std::move(run.strategy);
    step.bug = std::move(bug);
  }
  return step;
}

SampleRequest SampledSearch::Request(uint64_t index) const {
  return SampleRequest{kind_, index, seed_, pct_depth_, first_steps_.value_or(0)};
}

void SampledSearch::Announce(ExecutionBackend& backend) const {
  BranchRunner* runner = backend.Branches();
  if (runner == nullptr || (kind_ == StrategyKind::kPct && !first_steps_)) return;
  std::vector<SampleRequest> next;
  for (uint64_t index = samples_; next.size() < kAnnounced; ++index) {
    if (shard_.Owns(index)) next.push_back(Request(index));
  }
  runner->UpcomingSamples(next);
}

}  // namespace chess::search
