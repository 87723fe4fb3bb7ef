#include "search/bounded_search.h"

#include <algorithm>
#include <iterator>
#include <memory>

#include "search/mix.h"

namespace chess::search {

BoundedSearch::BoundedSearch(StrategyKind bounding, uint32_t bound, uint64_t max_executions, bool state_cache,
                             LivenessLimits liveness, Shard shard)
    : bounding_(bounding), bound_limit_(bound), max_executions_(max_executions), liveness_(liveness), shard_(shard) {
  if (state_cache) cache_.emplace(bounding);
  if (!shard_.Whole()) {
    trunk_.emplace();
    trunk_->level.push_back(std::move(current_.back()));
    current_.clear();
  }
}

BranchRun RunBranch(const Branch& branch, LivenessLimits liveness, bool record_states, StrategyKind bounding,
                    ExecutionBackend& backend) {
  BoundedExecution execution(branch, liveness, record_states, bounding);
  BranchRun run;
  run.summary = backend.Execute(execution);
  run.preemptions = execution.Preemptions();
  run.spent = execution.Spent();
  run.preemption_decisions = execution.PreemptionDecisions();
  run.strategy = execution.Describe();
  run.diverged = execution.Diverged();
  run.decisions = execution.TakeDecisions();
  run.alternatives = execution.TakeAlternatives();
  run.visits = execution.TakeVisits();
  return run;
}

BranchRun BoundedSearch::RunOnce(const Branch& branch, bool retry, ExecutionBackend& backend) {
  if (BranchRunner* runner = backend.Branches()) return runner->Run(branch, retry);
  return RunBranch(branch, liveness_, cache_.has_value(), bounding_, backend);
}

std::optional<BranchRun> BoundedSearch::Run(const Branch& branch, bool owned, ExecutionBackend& backend,
                                            ExplorationResult& result, EngineStep& step) {
  uint64_t& counted = owned ? result.executions : result.replayed_prefixes;
  BranchRun run = RunOnce(branch, false, backend);
  ++counted;
  if (run.summary.outcome != Outcome::kDivergence) {
    step.summary = std::move(run.summary);
    return run;
  }
  // Once more: something outside the schedule (a signal from outside, a slow disk) may have
  // got in the way. A second divergence gives the branch up.
  ++result.divergences;
  if (owned && !trunk_ && result.executions >= max_executions_) {
    step.summary = std::move(run.summary);
    current_.push_back(branch);  // not given up: the limit came first
    step.followed = false;
    return std::nullopt;
  }
  run = RunOnce(branch, true, backend);
  ++counted;
  if (run.summary.outcome != Outcome::kDivergence) {
    step.summary = std::move(run.summary);
    return run;
  }
  ++result.divergences;
  step.followed = false;
  // A trunk item given up, even one another shard owns, leaves what it leads to out of the deal
  // here: the ranks after it no longer match the other shards', so this part is not covered.
  ++result.coverage.pruned;
  if (result.pruned_branches.size() < kDescribedPrunedBranches) {
    result.pruned_branches.push_back(Describe(branch, run, result.executions));
  }
  step.summary = std::move(run.summary);
  return std::nullopt;
}

void BoundedSearch::Announce(ExecutionBackend& backend) const {
  BranchRunner* runner = backend.Branches();
  if (runner == nullptr) return;
  // In the order Step takes them: this round's from the back, then the trunk's level, then the
  // later rounds', each in the order found.
  std::vector<const Branch*> next;
  for (auto item = current_.rbegin(); item != current_.rend() && next.size() < kAnnounced; ++item) next.push_back(&*item);
  if (trunk_) {
    for (const Branch& item : trunk_->level) {
      if (next.size() == kAnnounced) break;
      next.push_back(&item);
    }
  }
  for (const auto& [round, items] : later_) {
    for (const Branch& item : items) {
      if (next.size() == kAnnounced) break;
      next.push_back(&item);
    }
  }
  runner->Upcoming(next);
  runner->ChildrenWithin(shard_.Whole() ? std::optional<uint32_t>(bound_limit_) : std::nullopt);
}

EngineStep BoundedSearch::Step(ExecutionBackend& backend, ExplorationResult& result) {
  announced_to_ = backend.Branches();
  EngineStep step;
  const bool in_trunk = trunk_.has_value();
  Branch branch;
  if (in_trunk) {
    branch = std::move(trunk_->level.front());
    trunk_->level.pop_front();
  } else {
    branch = std::move(current_.back());
    current_.pop_back();
  }
  // The trunk's executions are dealt in the order every shard runs them.
  const bool owned = !in_trunk || shard_.Owns(trunk_->ran++);
  std::optional<BranchRun> run = Run(branch, owned, backend, result, step);
  highest_run_ = std::max(highest_run_, branch.spent);
  if (in_trunk && run) result.trunk_digest += ScheduleDigest(run->decisions);
  const auto end_of_step = [&] {
    if (trunk_ && trunk_->level.empty()) {
      EndTrunkLevel(result);
    } else if (!trunk_ && current_.empty()) {
      EndRound(result);
    }
    if (!end_) Announce(backend);
  };
  if (!run) {
    end_of_step();
    return step;
  }
  if (EndsTheSearch(step.summary.outcome)) return step;
  // The state cache, now that the execution is taken in: from the first state searched before,
  // its alternatives add nothing.
  const size_t pruned_from = (cache_ ? cache_->Prune(run->visits) : std::nullopt).value_or(SIZE_MAX);
  const auto cache_pruned = [&](const Alternative& alternative) { return alternative.decision >= pruned_from; };
  if (owned) {
    ++result.coverage.schedules;
    result.schedules_digest += ScheduleDigest(run->decisions);
    ++done_in_bound_;
    // Count only what the bound would have let run.
    for (const Alternative& skipped : run->alternatives) {
      if (cache_pruned(skipped) && branch.spent + skipped.cost <= bound_limit_) ++result.coverage.cache_pruned;
    }
    if (step.summary.outcome == Outcome::kStepLimit) ++result.step_limited;
    if (IsBug(step.summary.outcome)) {
      step.bug = FoundBug{};
      step.bug->execution = result.executions;
      step.bug->found_by = bounding_;
      step.bug->execution_strategy = run->strategy;
      step.bug->summary = step.summary;
      step.bug->preemptions = run->preemptions;
      if (bounding_ == StrategyKind::kDb) step.bug->delays = run->spent;
      step.bug->preemption_decisions = run->preemption_decisions;
      step.bug->schedule = run->decisions;
    }
  }
  // Its alternatives: every one is a distinct schedule, as it differs from this one at its
  // decision and agrees with it before.
  auto path = std::make_shared<const ExecutionPath>(ExecutionPath{
      result.executions + result.replayed_prefixes, std::move(run->decisions), std::move(step.summary.names)});
  for (const Alternative& alternative : run->alternatives) {
    if (cache_pruned(alternative)) continue;
    Branch child{path,          alternative.decision, alternative.choice, branch.spent + alternative.cost,
                 branch.depth + 1, branch.dealt,         next_serial_++};
    if (child.spent > bound_limit_) {
      beyond_bound_ = true;
      continue;
    }
    if (trunk_) {
      trunk_->found.push_back(std::move(child));
    } else if (!child.dealt || shard_.Owns(*child.dealt)) {
      Keep(std::move(child), result);
    }  // else another shard's subtree
  }
  end_of_step();
  return step;
}

void BoundedSearch::Keep(Branch child, ExplorationResult& result) {
  // Work that could never run within --max-executions is not kept; an earlier round's comes
  // before a later round's.
  const uint64_t room = max_executions_ - std::min(max_executions_, result.executions);
  const bool this_round = child.spent == bound_;
  if (current_.size() + queued_later_ >= room && !later_.empty() && later_.rbegin()->first > child.spent) {
    auto last = std::prev(later_.end());
    if (announced_to_ != nullptr) announced_to_->Dropped(last->second.back().serial);
    last->second.pop_back();
    dropped_from_ = std::min(dropped_from_.value_or(last->first), last->first);
    if (last->second.empty()) later_.erase(last);
    --queued_later_;
  }
  if (current_.size() + queued_later_ >= room) {
    dropped_from_ = std::min(dropped_from_.value_or(child.spent), child.spent);
    return;  // never announced: nothing to tell the runner
  }
  if (this_round) {
    current_.push_back(std::move(child));
  } else {
    later_[child.spent].push_back(std::move(child));
    ++queued_later_;
  }
}

void BoundedSearch::EndTrunkLevel(ExplorationResult& result) {
  SearchTrunk& trunk = *trunk_;
  const uint32_t depth = trunk.depth + 1;  // of the items found
  if (trunk.found.size() < kDealtPerShard * shard_.count && depth < kMaxSplitDepth && !trunk.found.empty()) {
    // Too few to deal: they are the trunk's next level.
    trunk.level.assign(std::make_move_iterator(trunk.found.begin()), std::make_move_iterator(trunk.found.end()));
    trunk.found.clear();
    trunk.depth = depth;
    return;
  }
  std::vector<Branch> found = std::move(trunk.found);
  trunk_.reset();
  // What every shard must agree on for the parts to add up: where the work was dealt, and how
  // much of it there was.
  result.split_depth = depth;
  result.trunk_digest = Mix64(result.trunk_digest, found.size());
  // The deal: round-robin by the order found, the same in every shard. Each round's work is
  // taken from the back, so it goes in reversed to run in the order found.
  for (uint64_t rank = 0; rank < found.size(); ++rank) found[rank].dealt = rank;
  for (auto item = found.rbegin(); item != found.rend(); ++item) {
    if (shard_.Owns(*item->dealt) && item->spent == bound_) Keep(std::move(*item), result);
  }
  for (Branch& item : found) {
    if (shard_.Owns(*item.dealt) && item.spent != bound_) Keep(std::move(item), result);
  }
  if (current_.empty()) EndRound(result);
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
    // Nothing left within the bound: every schedule up to it ran (bound-explored), or up to the
    // highest round any schedule needed — a shard's trunk may have run later rounds than its own
    // last (exhausted).
    if (!pruned) result.coverage.bound_completed = beyond_bound_ ? bound_limit_ : std::max(bound_, highest_run_);
    if (dropped_from_) {
      // Work of a later round was left out for --max-executions: that round is not covered.
      end_ = SearchEnd::kMaxExecutions;
      return;
    }
    result.coverage.complete = !pruned;
    end_ = pruned ? SearchEnd::kPruned : beyond_bound_ ? SearchEnd::kBoundExplored : SearchEnd::kExhausted;
    return;
  }
  // The next round takes its work in the order it was found. (Only a shard can have a round
  // with nothing in it: the one whose work was dealt to others.)
  auto next = later_.begin();
  const bool adjacent = next->first == bound_ + 1;
  if (adjacent) {
    current_.assign(std::make_move_iterator(next->second.rbegin()), std::make_move_iterator(next->second.rend()));
    queued_later_ -= next->second.size();
    later_.erase(next);
  }
  ++bound_;
  done_in_bound_ = 0;
  result.bound = bound_;
  if (current_.empty()) EndRound(result);
}

PrunedBranch BoundedSearch::Describe(const Branch& branch, const BranchRun& run, uint64_t number) {
  const ExecutionSummary& summary = run.summary;
  PrunedBranch pruned;
  pruned.execution = number;
  if (run.diverged) {
    pruned.where = *run.diverged;
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
  progress.queued_in_bound = current_.size() + (trunk_ ? trunk_->level.size() : 0);
  progress.queued_next = queued_later_;
}

}  // namespace chess::search
