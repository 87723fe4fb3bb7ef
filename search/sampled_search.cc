#include "search/sampled_search.h"

#include <algorithm>
#include <memory>

#include "search/mix.h"
#include "search/sampled_execution.h"

namespace chess::search {

SampledSearch::SampledSearch(StrategyKind kind, uint64_t seed, uint32_t pct_depth, LivenessLimits liveness)
    : kind_(kind), seed_(seed), pct_depth_(pct_depth), liveness_(liveness) {}

uint64_t SampledSearch::SampleSeed(StrategyKind kind, uint64_t seed, uint64_t index) {
  // Each strategy its own stream, so that a portfolio's pct and random draw different samples.
  return Mix64(Mix64(seed, static_cast<uint64_t>(kind) + 1), index);
}

EngineStep SampledSearch::Step(ExecutionBackend& backend, ExplorationResult& result) {
  const uint64_t seed = SampleSeed(kind_, seed_, samples_++);
  std::unique_ptr<SampledExecution> execution;
  if (kind_ == StrategyKind::kPct) {
    execution = std::make_unique<PctExecution>(seed, liveness_, pct_depth_, longest_);
  } else {
    execution = std::make_unique<RandomWalk>(seed, liveness_);
  }
  EngineStep step;
  step.summary = backend.Execute(*execution);
  ++result.executions;
  // A sample has no prefix to follow: a divergence means the program did something chess-trace
  // does not control; the sample is simply lost.
  if (step.summary.outcome == Outcome::kDivergence) {
    ++result.divergences;
    step.followed = false;
    return step;
  }
  if (EndsTheSearch(step.summary.outcome)) return step;
  ++result.coverage.schedules;
  ++result.coverage.sampled;
  longest_ = std::max(longest_, execution->ChoiceSteps());
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
