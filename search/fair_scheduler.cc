#include "search/fair_scheduler.h"

namespace chess::search {

FairScheduler::PerThread& FairScheduler::Of(ThreadId thread) {
  if (thread.value >= threads_.size()) threads_.resize(thread.value + 1);
  return threads_[thread.value];
}

void FairScheduler::Meet(std::span<const ThreadId> enabled) {
  // A thread seen for the first time was just created: its E set starts now.
  for (ThreadId id : enabled) {
    PerThread& state = Of(id);
    if (state.known) continue;
    state.known = true;
    if (init_ == Init::kEager) state.enabled = ThreadSet(enabled);
  }
}

bool FairScheduler::IsSchedulable(ThreadId thread, std::span<const ThreadId> enabled) const {
  if (thread.value >= threads_.size()) return true;
  const ThreadSet& lower_than = threads_[thread.value].lower_than;
  if (lower_than.Empty()) return true;
  for (ThreadId other : enabled) {
    if (lower_than.Contains(other)) return false;
  }
  return true;
}

std::vector<ThreadId> FairScheduler::Schedulable(std::span<const ThreadId> enabled) const {
  std::vector<ThreadId> schedulable;
  for (ThreadId id : enabled) {
    if (IsSchedulable(id, enabled)) schedulable.push_back(id);
  }
  return schedulable;
}

void FairScheduler::Stepped(ThreadId thread, std::span<const ThreadId> before, std::span<const ThreadId> after,
                            bool yielded) {
  Meet(before);
  Meet(after);
  Of(thread).known = true;
  const ThreadSet now_enabled(after);
  // 1. The thread ran: nobody keeps a priority edge below it.
  for (PerThread& state : threads_) state.lower_than.Erase(thread);
  // 2. E(u) keeps only threads still enabled; 4. the thread joins every S(u).
  for (PerThread& state : threads_) {
    state.enabled.IntersectWith(now_enabled);
    state.scheduled.Insert(thread);
  }
  // 3. Threads its step disabled.
  PerThread& self = Of(thread);
  ThreadSet disabled(before);
  disabled.Subtract(now_enabled);
  self.disabled.UnionWith(disabled);
  // 5. A yield: lower than everyone it kept waiting, and a fresh start of its sets.
  if (yielded) {
    ThreadSet higher = self.enabled;
    higher.UnionWith(self.disabled);
    higher.Subtract(self.scheduled);
    higher.Erase(thread);
    self.lower_than.UnionWith(higher);
    self.enabled = now_enabled;
    self.disabled.Clear();
    self.scheduled.Clear();
  }
}

uint64_t FairScheduler::Fingerprint() const {
  uint64_t hash = 0;
  for (size_t i = 0; i < threads_.size(); ++i) {
    const PerThread& state = threads_[i];
    if (!state.known) continue;
    for (const ThreadSet* set : {&state.lower_than, &state.enabled, &state.disabled, &state.scheduled}) {
      hash = (hash ^ set->Fingerprint()) * 0x9e3779b97f4a7c15ull;
    }
    hash ^= i;
  }
  return hash;
}

std::vector<ThreadId> FairScheduler::LowerThan(ThreadId thread) const {
  if (thread.value >= threads_.size()) return {};
  return threads_[thread.value].lower_than.Members();
}

}  // namespace chess::search
