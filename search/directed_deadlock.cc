#include "search/directed_deadlock.h"

#include <algorithm>
#include <set>

namespace chess::search {

DirectedDeadlock::DirectedDeadlock(PredictedCycle cycle, std::map<uint64_t, LockKind> kinds, uint64_t seed,
                                   uint64_t attempt, LivenessLimits limits)
    : SampledExecution(seed, limits), cycle_(std::move(cycle)), kinds_(std::move(kinds)), attempt_(attempt) {}

std::string DirectedDeadlock::Describe() const {
  return "directed (a predicted " + std::to_string(cycle_.steps.size()) + "-thread deadlock, attempt " +
         std::to_string(attempt_) + ", seed " + std::to_string(Seed()) + ")";
}

namespace {

bool FixedAddress(const std::map<uint64_t, LockKind>& kinds, uint64_t lock) {
  auto found = kinds.find(lock);
  return found != kinds.end() && found->second.fixed_address;
}

bool Holds(const LockDependency& holder, uint64_t lock) {
  return std::any_of(holder.held.begin(), holder.held.end(), [&](const HeldLock& held) { return held.lock == lock; });
}

}  // namespace

bool DirectedDeadlock::Matches(const LockDependency& request, size_t step) const {
  const LockDependency& want = cycle_.steps[step];
  if (request.site != want.site || request.mode != want.mode) return false;
  if (FixedAddress(kinds_, want.lock) && request.lock != want.lock) return false;
  // Every lock the step held, taken where it was (and itself, where its address is fixed).
  for (const HeldLock& held : want.held) {
    const bool found = std::any_of(request.held.begin(), request.held.end(), [&](const HeldLock& candidate) {
      return candidate.site == held.site && candidate.mode == held.mode &&
             (!FixedAddress(kinds_, held.lock) || candidate.lock == held.lock);
    });
    if (!found) return false;
  }
  return true;
}

bool DirectedDeadlock::Chains(const LockDependency& request, size_t step) const {
  const size_t n = cycle_.steps.size();
  auto before = paused_.find((step + n - 1) % n);
  if (before != paused_.end() && !Holds(request, before->second.request.lock)) return false;
  auto after = paused_.find((step + 1) % n);
  if (after != paused_.end() && !Holds(after->second.request, request.lock)) return false;
  return true;
}

bool DirectedDeadlock::IsPaused(ThreadId thread) const {
  return std::any_of(paused_.begin(), paused_.end(), [&](const auto& entry) { return entry.second.thread == thread; });
}

void DirectedDeadlock::Unpause(ThreadId thread) {
  for (auto entry = paused_.begin(); entry != paused_.end(); ++entry) {
    if (entry->second.thread == thread) {
      paused_.erase(entry);
      return;
    }
  }
}

void DirectedDeadlock::Stopped(const SchedulingContext& context) {
  ++decisions_;
  const ThreadId thread = *context.current;
  // A paused thread that stops again ran: it was let go (the only one that could run).
  Unpause(thread);
  if (released_ || context.locks == nullptr ||
      (context.point.op != OpKind::kSyncOp && context.point.op != OpKind::kSyscall)) {
    return;
  }
  const std::optional<LockRequest> request = context.locks->PendingOf(thread);
  if (!request) return;
  for (size_t step = 0; step < cycle_.steps.size(); ++step) {
    if (paused_.count(step) != 0 || !Matches(request->dependency, step) || !Chains(request->dependency, step)) continue;
    paused_.emplace(step, Paused{thread, request->dependency, decisions_});
    break;
  }
  if (paused_.size() == cycle_.steps.size()) {
    // Every step is where the cycle needs it: let them all go, into each other's locks.
    released_ = true;
    paused_.clear();
  }
}

ThreadId DirectedDeadlock::Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) {
  // A thread paused too long goes on.
  for (auto entry = paused_.begin(); entry != paused_.end();) {
    entry = decisions_ - entry->second.since > kMaxPausedDecisions ? paused_.erase(entry) : std::next(entry);
  }
  std::vector<ThreadId> free;
  for (ThreadId candidate : candidates) {
    if (!IsPaused(candidate)) free.push_back(candidate);
  }
  if (free.empty()) {
    // Thrashing: everyone who could run waits at a step. One goes on.
    const ThreadId chosen = candidates[Uniform(candidates.size())];
    Unpause(chosen);
    return chosen;
  }
  if (context.current && std::find(free.begin(), free.end(), *context.current) != free.end() &&
      context.current_stop == StopReason::kReachedPoint) {
    return *context.current;
  }
  return free[Uniform(free.size())];
}

}  // namespace chess::search
