#include "supervisor/report/point_history.h"

#include <map>

namespace chess::supervisor {
namespace {

// Turns of a cycle that must repeat before it counts as the thread's cycle.
constexpr size_t kTurns = 3;
constexpr size_t kLongestCycle = 64;

bool Same(const PointHistory::Step& a, const PointHistory::Step& b) {
  return a.pc == b.pc && a.point.op == b.point.op && a.point.syscall == b.point.syscall &&
         a.point.resource == b.point.resource && a.point.is_write == b.point.is_write &&
         a.point.is_release == b.point.is_release;
}

}  // namespace

void PointHistory::Record(uint32_t thread, const search::SchedulingPoint& point, uint64_t pc) {
  if (steps_.size() == kKept) steps_.pop_front();
  steps_.push_back({thread, {point, pc}});
}

std::vector<PointHistory::Cycle> PointHistory::RepeatingCycles() const {
  std::map<uint32_t, std::vector<Step>> by_thread;
  for (const Entry& entry : steps_) by_thread[entry.thread].push_back(entry.step);
  std::vector<Cycle> cycles;
  for (const auto& [thread, steps] : by_thread) {
    for (size_t period = 1; period <= kLongestCycle && period * kTurns <= steps.size(); ++period) {
      const size_t start = steps.size() - period * kTurns;
      bool repeats = true;
      for (size_t i = start + period; i < steps.size() && repeats; ++i) repeats = Same(steps[i], steps[i - period]);
      if (!repeats) continue;
      cycles.push_back({thread, std::vector<Step>(steps.end() - static_cast<long>(period), steps.end())});
      break;
    }
  }
  return cycles;
}

}  // namespace chess::supervisor
