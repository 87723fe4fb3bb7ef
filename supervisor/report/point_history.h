// The last scheduling points each thread ran, kept for explaining a livelock: threads that go
// round forever repeat a cycle of points (try a lock, fail, release, yield…), and that cycle,
// with the code address of each point, is what a person needs to see.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "search/scheduling_point.h"

namespace chess::supervisor {

class PointHistory {
 public:
  struct Step {
    search::SchedulingPoint point;
    uint64_t pc = 0;  // where the thread stood at that point
  };
  struct Cycle {
    uint32_t thread = 0;
    std::vector<Step> steps;  // one turn of the cycle, oldest first
  };

  void Record(uint32_t thread, const search::SchedulingPoint& point, uint64_t pc);
  void Clear() { steps_.clear(); }
  // For each thread whose recent points repeat (the last turns of one cycle, the same points at
  // the same addresses), one turn of its shortest such cycle.
  std::vector<Cycle> RepeatingCycles() const;

 private:
  struct Entry {
    uint32_t thread;
    Step step;
  };
  static constexpr size_t kKept = 4096;
  std::deque<Entry> steps_;
};

}  // namespace chess::supervisor
