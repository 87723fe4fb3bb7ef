#include "search/state_cache.h"

#include "search/mix.h"

namespace chess::search {
namespace {

// Operations on these objects conflict with nothing but their own thread's, which the per-thread
// index orders already: a thread's start, a backstop interrupt, a fairness yield.
bool ThreadLocal(OpKind op) {
  return op == OpKind::kThreadStart || op == OpKind::kInterrupted || op == OpKind::kFairnessYield;
}

// The object a deadline fired early conflicts on: time itself.
constexpr uint64_t kTimeObject = 0x7469'6d65'0000'0001ull;

}  // namespace

uint64_t HappensBeforeHash::Count(std::vector<uint64_t>& counts, size_t index) {
  if (index >= counts.size()) counts.resize(index + 1, 0);
  return counts[index]++;
}

void HappensBeforeHash::Executed(ThreadId thread, const SchedulingPoint& operation, bool fired_early) {
  const uint64_t in_thread = Count(per_thread_, thread.value);
  uint64_t object = fired_early ? kTimeObject : operation.resource;
  uint64_t on_object = 0;
  if (ThreadLocal(operation.op) && !fired_early) {
    object = Mix64(thread.value, 0xdead'beefull);
    on_object = in_thread;
  } else {
    on_object = per_object_[object]++;
  }
  uint64_t tuple = Mix64(thread.value, object);
  tuple = Mix64(tuple, static_cast<uint64_t>(operation.op) | uint64_t{operation.is_write} << 8 |
                           uint64_t{operation.is_release} << 9 | static_cast<uint64_t>(operation.syscall) << 16);
  tuple = Mix64(tuple, in_thread);
  tuple = Mix64(tuple, on_object);
  sum_ += tuple;
}

std::optional<uint32_t> StateCache::SwitchCost(const Entry& visit, Last last) const {
  if (visit.last == last) return 0;
  if (bounding_ == StrategyKind::kDb) return std::nullopt;
  return visit.last.may_go_on ? 1 : 0;
}

bool StateCache::Visit(uint64_t state, Last last, uint32_t spent) {
  auto found = visited_.find(state);
  if (found == visited_.end()) {
    if (entries_ < capacity_) {
      visited_[state].push_back({last, spent});
      ++entries_;
    }
    return false;
  }
  std::vector<Entry>& visits = found->second;
  Entry* same = nullptr;
  for (Entry& visit : visits) {
    const std::optional<uint32_t> switch_cost = SwitchCost(visit, last);
    if (switch_cost && visit.spent + *switch_cost <= spent) return true;
    if (visit.last == last) same = &visit;
  }
  if (same != nullptr) {
    same->spent = spent;  // less than before, or it would have covered this visit
  } else if (entries_ < capacity_) {
    visits.push_back({last, spent});
    ++entries_;
  }
  return false;
}

std::optional<size_t> StateCache::Prune(const std::vector<StateVisit>& visits) {
  for (const StateVisit& visit : visits) {
    if (Visit(visit.state, visit.last, visit.spent)) return visit.decision;
  }
  return std::nullopt;
}

}  // namespace chess::search
