#include "search/bounded_execution.h"

#include <algorithm>

namespace chess::search {
namespace {

bool Contains(std::span<const ThreadId> threads, ThreadId thread) {
  return std::find(threads.begin(), threads.end(), thread) != threads.end();
}

// A stop the search does not branch at: the backstop interrupted a thread that computed for a
// slice, or the syscall budget made it give way. Where such a stop falls depends on timing or
// on counting, not on the program's synchronization, so it is a forced yield (design §3).
bool ForcedYield(const SchedulingContext& context) {
  return context.current && context.current_stop == StopReason::kYielded &&
         (context.point.op == OpKind::kInterrupted || context.point.op == OpKind::kFairnessYield);
}

}  // namespace

BoundedExecution::BoundedExecution(const Branch& branch, LivenessLimits limits) : liveness_(limits) {
  if (branch.path) {
    std::vector<RecordedDecision> prefix(branch.path->begin(),
                                         branch.path->begin() + static_cast<ptrdiff_t>(branch.decision + 1));
    prefix.back().picked = branch.choice;
    replay_.emplace(std::move(prefix));
  }
}

bool BoundedExecution::IsPreemption(const SchedulingContext& context, ThreadId picked,
                                    std::span<const ThreadId> schedulable) {
  return context.current && picked != *context.current && context.current_stop == StopReason::kReachedPoint &&
         Contains(schedulable, *context.current);
}

std::vector<ThreadId> BoundedExecution::Ordered(const SchedulingContext& context,
                                                std::span<const ThreadId> schedulable) {
  std::vector<ThreadId> ordered;
  ordered.reserve(schedulable.size());
  if (context.current && Contains(schedulable, *context.current)) ordered.push_back(*context.current);
  for (ThreadId thread : schedulable) {
    if (ordered.empty() || thread != ordered.front()) ordered.push_back(thread);
  }
  return ordered;
}

ThreadId BoundedExecution::PickThread(const SchedulingContext& context) {
  if (context.current && !decisions_.empty()) {
    fairness_.Stepped(*context.current, previous_enabled_, context.enabled, context.current_stop == StopReason::kYielded);
  }
  previous_enabled_.assign(context.enabled.begin(), context.enabled.end());
  std::vector<ThreadId> schedulable = fairness_.Schedulable(context.enabled);
  if (schedulable.empty()) schedulable = previous_enabled_;  // cannot happen (PLDI'08 invariant): never stall
  const size_t decision = decisions_.size();

  ThreadId picked;
  if (Replaying()) {
    picked = replay_->PickThread(context);
    if (!replay_->Divergence() && !Contains(schedulable, picked)) {
      divergence_ = "decision " + std::to_string(decision) + ": the replayed choice, thread " +
                    std::to_string(picked.value) + ", is not schedulable under fairness here";
    }
  } else if (ForcedYield(context)) {
    // The thread gives way to the next one that may run after it, cyclically, or goes on alone.
    const ThreadId current = *context.current;
    picked = current;
    for (ThreadId thread : schedulable) {
      if (thread == current) continue;
      if (picked == current || (picked < current && thread > current)) picked = thread;
    }
  } else {
    const std::vector<ThreadId> ordered = Ordered(context, schedulable);
    picked = ordered.front();
    for (size_t i = 1; i < ordered.size(); ++i) {
      alternatives_.push_back({decision, ordered[i], IsPreemption(context, ordered[i], schedulable)});
    }
  }
  if (IsPreemption(context, picked, schedulable)) preemptions_.push_back(decision);
  decisions_.push_back(Decided(context, picked));
  liveness_.Observe(context, schedulable, picked);
  return picked;
}

std::optional<std::string> BoundedExecution::Divergence() const {
  if (replay_ && replay_->Divergence()) return replay_->Divergence();
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
