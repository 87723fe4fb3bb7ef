#include "search/bounded_search.h"

#include <algorithm>
#include <iterator>
#include <memory>

namespace chess::search {

BoundedSearch::BoundedSearch(StrategyKind bounding, uint32_t bound, uint64_t max_executions, bool state_cache,
                             LivenessLimits liveness)
    : bounding_(bounding), bound_limit_(bound), max_executions_(max_executions), liveness_(liveness) {
  if (state_cache) cache_.emplace(bounding);
}

size_t BoundedSearch::QueuedLater() const {
  size_t queued = 0;
  for (const auto& [round, work] : later_) queued += work.size();
  return queued;
}

EngineStep BoundedSearch::Step(ExecutionBackend& backend, ExplorationResult& result) {
  EngineStep step;
  const Branch branch = std::move(current_.back());
  current_.pop_back();
  StateCache* cache = cache_ ? &*cache_ : nullptr;
  auto execution = std::make_unique<BoundedExecution>(branch, liveness_, cache, bounding_);
  step.summary = backend.Execute(*execution);
  ++result.executions;
  if (step.summary.outcome == Outcome::kDivergence) {
    // Once more: something outside the schedule (a signal from outside, a slow disk) may have
    // got in the way. A second divergence gives the branch up.
    ++result.divergences;
    if (result.executions >= max_executions_) {
      current_.push_back(branch);  // not given up: the limit came first
      step.followed = false;
      return step;
    }
    execution = std::make_unique<BoundedExecution>(branch, liveness_, cache, bounding_);
    step.summary = backend.Execute(*execution);
    ++result.executions;
    if (step.summary.outcome == Outcome::kDivergence) {
      ++result.divergences;
      ++result.coverage.pruned;
      if (result.pruned_branches.size() < kDescribedPrunedBranches) {
        result.pruned_branches.push_back(Describe(branch, *execution, step.summary, result.executions));
      }
      step.followed = false;
      if (current_.empty()) EndRound(result);
      return step;
    }
  }
  if (EndsTheSearch(step.summary.outcome)) return step;
  ++result.coverage.schedules;
  ++done_in_bound_;
  // Count only what the bound would have let run.
  for (const Alternative& skipped : execution->CacheSkipped()) {
    if (bound_ + skipped.cost <= bound_limit_) ++result.coverage.cache_pruned;
  }
  if (step.summary.outcome == Outcome::kStepLimit) ++result.step_limited;
  if (IsBug(step.summary.outcome)) {
    step.bug = FoundBug{};
    step.bug->execution = result.executions;
    step.bug->summary = step.summary;
    step.bug->found_by = bounding_;
    step.bug->execution_strategy = execution->Describe();
    step.bug->preemptions = execution->Preemptions();
    if (bounding_ == StrategyKind::kDb) step.bug->delays = execution->Spent();
    step.bug->preemption_decisions = execution->PreemptionDecisions();
    step.bug->schedule = execution->Decisions();
  }
  // Its alternatives: every one is a distinct schedule, as it differs from this one at its
  // decision and agrees with it before. Work that could never run within --max-executions is
  // not kept.
  auto path = std::make_shared<const ExecutionPath>(
      ExecutionPath{result.executions, execution->TakeDecisions(), std::move(step.summary.names)});
  const uint64_t room = max_executions_ - std::min(max_executions_, result.executions);
  for (const Alternative& alternative : execution->Alternatives()) {
    const uint32_t round = bound_ + alternative.cost;
    Branch child{path, alternative.decision, alternative.choice, round};
    if (round > bound_limit_) {
      beyond_bound_ = true;
      continue;
    }
    // An earlier round's work comes before a later round's.
    if (current_.size() + QueuedLater() >= room && !later_.empty() && later_.rbegin()->first > round) {
      const auto latest = std::prev(later_.end());
      latest->second.pop_back();
      dropped_from_ = std::min(dropped_from_.value_or(latest->first), latest->first);
      if (latest->second.empty()) later_.erase(latest);
    }
    if (current_.size() + QueuedLater() >= room) {
      dropped_from_ = std::min(dropped_from_.value_or(round), round);
      continue;
    }
    (round == bound_ ? current_ : later_[round]).push_back(std::move(child));
  }
  if (current_.empty()) EndRound(result);
  return step;
}

void BoundedSearch::EndRound(ExplorationResult& result) {
  // Work left out was more than the executions left: the limit ends the search, not the space.
  if (dropped_from_ && *dropped_from_ <= bound_) {
    end_ = SearchEnd::kMaxExecutions;
    return;
  }
  // A pruned branch leaves what it leads to unsearched — schedules of its round and of every
  // round after: from then on no bound is covered.
  const bool pruned = result.coverage.pruned > 0;
  if (!pruned) result.coverage.bound_completed = bound_;
  if (later_.empty()) {
    result.coverage.complete = !pruned;
    end_ = pruned ? SearchEnd::kPruned : beyond_bound_ ? SearchEnd::kBoundExplored : SearchEnd::kExhausted;
    return;
  }
  // The next round with work takes it in the order it was found.
  const auto next = later_.begin();
  current_.assign(std::make_move_iterator(next->second.rbegin()), std::make_move_iterator(next->second.rend()));
  bound_ = next->first;
  later_.erase(next);
  done_in_bound_ = 0;
  result.bound = bound_;
}

PrunedBranch BoundedSearch::Describe(const Branch& branch, const BoundedExecution& execution,
                                     const ExecutionSummary& summary, uint64_t number) {
  PrunedBranch pruned;
  pruned.execution = number;
  if (auto where = execution.Diverged()) {
    pruned.where = std::move(*where);
  } else {
    pruned.where.message = summary.message;  // the backend's own (a fork that was not the execution asked for)
  }
  for (const StoppedThread& thread : summary.threads) {
    if (pruned.where.found_thread && thread.thread == pruned.where.found_thread->value) pruned.stopped = thread;
  }
  if (branch.path) {
    pruned.replayed = branch.path->execution;
    pruned.cause = CompareExecutions(branch.path->names, summary.names);
  }
  return pruned;
}

void BoundedSearch::Progress(ExplorerProgress& progress) const {
  progress.bound = bound_;
  progress.done_in_bound = done_in_bound_;
  progress.queued_in_bound = current_.size();
  const auto next = later_.find(bound_ + 1);
  progress.queued_next = next != later_.end() ? next->second.size() : 0;
}

}  // namespace chess::search
