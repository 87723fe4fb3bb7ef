#include "search/critical_pair.h"

#include <map>

namespace chess::search {
namespace {

std::optional<CriticalPair> PairAfter(const std::vector<RecordedDecision>& schedule, size_t preemption) {
  const RecordedDecision& at = schedule[preemption];
  if (!at.current || !AtInstruction(at.point.op) || at.point.resource == 0) return std::nullopt;
  const ThreadId waited = *at.current;
  // Threads stopped before an atomic instruction or a racing access on the same memory, not yet let go: the first
  // one picked again (before `waited`) ran its instruction first.
  std::map<ThreadId, SchedulingPoint> about_to;
  for (size_t j = preemption; j < schedule.size(); ++j) {
    const RecordedDecision& d = schedule[j];
    if (j > preemption && d.current && *d.current != waited && AtInstruction(d.point.op) &&
        d.point.resource == at.point.resource) {
      about_to[*d.current] = d.point;
    }
    if (d.picked == waited) return std::nullopt;  // it went on first after all
    if (auto found = about_to.find(d.picked); found != about_to.end()) {
      return CriticalPair{preemption, waited, at.point, d.picked, found->second};
    }
    // Picked, a thread that stopped elsewhere runs past where it was: it is no longer about to.
    about_to.erase(d.picked);
  }
  return std::nullopt;
}

}  // namespace

std::optional<CriticalPair> FindCriticalPair(const std::vector<RecordedDecision>& schedule,
                                             const std::vector<size_t>& preemptions) {
  for (auto it = preemptions.rbegin(); it != preemptions.rend(); ++it) {
    if (*it >= schedule.size()) continue;
    if (auto pair = PairAfter(schedule, *it)) return pair;
  }
  return std::nullopt;
}

}  // namespace chess::search
