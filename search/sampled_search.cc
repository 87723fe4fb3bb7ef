#include "search/sampled_search.h"

#include <algorithm>
#include <memory>

#include "search/mix.h"
#include "search/sampled_execution.h"

namespace chess::search {

SampledSearch::SampledSearch(StrategyKind kind, uint64_t seed, uint32_t pct_depth, LivenessLimits liveness, Shard shard)
    : kind_(kind), seed_(seed), pct_depth_(pct_depth), liveness_(liveness), shard_(shard) {}

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
  const uint64_t seed = SampleSeed(kind_, seed_, index);
  std::unique_ptr<SampledExecution> execution;
  if (kind_ == StrategyKind::kPct) {
    execution = std::make_unique<PctExecution>(seed, liveness_, pct_depth_, first_steps_.value_or(0));
  } else {
    execution = std::make_unique<RandomWalk>(seed, liveness_);
  }
  EngineStep step;
  step.summary = backend.Execute(*execution);
  ++(owned ? result.executions : result.replayed_prefixes);
  // k from a first sample that ran as scheduled: one that diverged (a timing outside the
  // schedule) is drawn again, a few times, so that every shard gets the same k.
  const bool diverged = step.summary.outcome == Outcome::kDivergence;
  if (!first_steps_ && index == 0 && diverged && ++first_retries_ < kFirstSampleRetries) {
    samples_ = 0;
  } else if (!first_steps_) {
    first_steps_ = execution->ChoiceSteps();
    if (kind_ == StrategyKind::kPct) result.pct_steps = *first_steps_;
  }
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
  result.schedules_digest += ScheduleDigest(execution->Decisions());
  if (step.summary.outcome == Outcome::kStepLimit) ++result.step_limited;
  if (IsBug(step.summary.outcome)) {
    FoundBug bug;
    bug.execution = result.executions;
    bug.summary = step.summary;
    bug.preemptions = execution->Preemptions();
    bug.preemption_decisions = execution->PreemptionDecisions();
    bug.schedule = execution->Decisions();
    bug.found_by = kind_;
    bug.execution_strategy = execution->Describe();
    step.bug = std::move(bug);
  }
  return step;
}

}  // namespace chess::search
