#include "search/bounded_execution.h"

#include <algorithm>

#include "search/mix.h"
#include "search/preemption.h"

namespace chess::search {

BoundedExecution::BoundedExecution(const Branch& branch, LivenessLimits limits, bool record_states,
                                   StrategyKind bounding)
    : bounding_(bounding), spent_(branch.spent), fair_(limits), record_states_(record_states) {
  if (branch.path) {
    const std::vector<RecordedDecision>& path = branch.path->decisions;
    std::vector<RecordedDecision> prefix(path.begin(), path.begin() + static_cast<ptrdiff_t>(branch.decision + 1));
    prefix.back().picked = branch.choice;
    replay_.emplace(std::move(prefix));
  }
}

std::vector<ThreadId> BoundedExecution::Ordered(const SchedulingContext& context,
                                                std::span<const ThreadId> schedulable) const {
  std::vector<ThreadId> ordered;
  ordered.reserve(schedulable.size() + context.timed.size());
  if (bounding_ == StrategyKind::kDb) {
    // The round robin starts at the thread that ran last, or the first after it (wrapping).
    size_t start = 0;
    if (context.current) {
      const auto from = std::find_if(schedulable.begin(), schedulable.end(),
                                     [&](ThreadId thread) { return thread >= *context.current; });
      if (from != schedulable.end()) start = static_cast<size_t>(from - schedulable.begin());
    }
    for (size_t i = 0; i < schedulable.size(); ++i) ordered.push_back(schedulable[(start + i) % schedulable.size()]);
  } else {
    if (context.current && Contains(schedulable, *context.current)) ordered.push_back(*context.current);
    for (ThreadId thread : schedulable) {
      if (ordered.empty() || thread != ordered.front()) ordered.push_back(thread);
    }
  }
  ordered.insert(ordered.end(), context.timed.begin(), context.timed.end());
  return ordered;
}

uint32_t BoundedExecution::Cost(const SchedulingContext& context, std::span<const ThreadId> ordered, size_t index,
                                std::span<const ThreadId> schedulable) const {
  if (bounding_ == StrategyKind::kPb) return CostsPreemption(context, ordered[index], schedulable) ? 1 : 0;
  // The round robin skips `index` schedulable threads to reach it; a deadline fired early costs
  // one delay, as it costs pb one preemption.
  return index < schedulable.size() ? static_cast<uint32_t>(index) : 1;
}

void BoundedExecution::RecordState(const SchedulingContext& context, size_t decision) {
  const uint64_t state = Mix64(happens_before_.Value(), fair_.FairnessFingerprint());
  const std::vector<ThreadId>& schedulable = fair_.Schedulable();
  StateCache::Last last;
  if (context.current) {
    last.thread = context.current->value;
    last.may_go_on = context.current_stop == StopReason::kReachedPoint && Contains(schedulable, *context.current);
  }
  visits_.push_back({decision, state, last, spent_});
}

void BoundedExecution::NoteExecuted(const SchedulingContext& context, ThreadId picked) {
  if (context.current) {
    if (context.current->value >= stopped_at_.size()) stopped_at_.resize(context.current->value + 1);
    stopped_at_[context.current->value] = context.point;
  }
  SchedulingPoint operation;
  operation.op = OpKind::kThreadStart;  // a thread never seen stopped is at its start
  if (picked.value < stopped_at_.size()) operation = stopped_at_[picked.value];
  happens_before_.Executed(picked, operation, !Contains(context.enabled, picked));
}

ThreadId BoundedExecution::PickThread(const SchedulingContext& context) {
  const std::vector<ThreadId>& schedulable = fair_.Begin(context);
  const size_t decision = fair_.Decisions().size();

  ThreadId picked;
  if (Replaying()) {
    const size_t replayed = replay_->Followed();
    picked = replay_->PickThread(context);
    if (!replay_->Divergence() && !divergence_ && !Contains(schedulable, picked) && !Contains(context.timed, picked)) {
      DivergencePoint point;
      point.decision = decision;
      point.expected = replay_->Recorded(replayed);
      point.found_thread = context.current;
      if (context.current) point.found_point = context.point;
      point.message = "decision " + std::to_string(decision) + ": the replayed choice, thread " +
                      std::to_string(picked.value) + ", is not schedulable under fairness here";
      divergence_ = std::move(point);
    }
  } else if (IsForcedYield(context)) {
    picked = NextAfterForcedYield(*context.current, schedulable);
  } else {
    const std::vector<ThreadId> ordered = Ordered(context, schedulable);
    picked = ordered.front();
    // Whether this state was searched before is the cache's question when the search takes
    // the execution in: here it is only noted.
    if (record_states_ && ordered.size() > 1) RecordState(context, decision);
    for (size_t i = 1; i < ordered.size(); ++i) {
      alternatives_.push_back({decision, ordered[i], Cost(context, ordered, i, schedulable)});
    }
  }
  if (record_states_) NoteExecuted(context, picked);
  fair_.Took(context, picked);
  return picked;
}

std::optional<std::string> BoundedExecution::Divergence() const {
  if (replay_ && replay_->Divergence()) return replay_->Divergence();
  return divergence_ ? std::optional<std::string>(divergence_->message) : std::nullopt;
}

std::optional<DivergencePoint> BoundedExecution::Diverged() const {
  if (replay_ && replay_->Diverged()) return replay_->Diverged();
  return divergence_;
}

bool BoundedExecution::MayInterrupt(ThreadId thread, uint64_t points) const {
  return Replaying() ? replay_->MayInterrupt(thread, points) : true;
}

std::optional<bool> BoundedExecution::YieldsAt(ThreadId thread, uint64_t points) const {
  return Replaying() ? replay_->YieldsAt(thread, points) : std::nullopt;
}

bool BoundedExecution::InterruptedBefore(ThreadId thread, uint64_t points) const {
  return Replaying() && replay_->InterruptedBefore(thread, points);
}

}  // namespace chess::search
