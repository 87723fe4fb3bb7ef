// LivenessMonitor: watches one execution's decisions for nontermination (design §5). An
// execution that passes the step limit is a livelock when every thread that ran in its last
// window kept yielding — polite threads going round in a fair schedule that never ends — and a
// plain step limit otherwise (a long computation is not a bug). A thread the backstop interrupts
// again and again, in the same spot, although every other thread had its turn in between, spins
// on memory without ever yielding: a good-Samaritan violation, which fair scheduling cannot
// help.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "search/strategy.h"
#include "search/thread_set.h"

namespace chess::search {

struct LivenessLimits {
  // Decisions an execution may take (--max-steps).
  uint64_t max_steps = 100'000;
  // The last part of those in which every running thread must have yielded for a livelock;
  // 0: a tenth of max_steps.
  uint64_t window = 0;
  // Backstop interrupts in a row of one spinning thread that make a good-Samaritan violation.
  uint32_t spin_interrupts = 8;
};

class LivenessMonitor {
 public:
  explicit LivenessMonitor(LivenessLimits limits) : limits_(limits) {}

  // Decision number `Steps()`: where the last thread stopped (`context`), who could be
  // scheduled, and who runs now.
  void Observe(const SchedulingContext& context, std::span<const ThreadId> schedulable, ThreadId picked);

  uint64_t Steps() const { return steps_; }
  // Set once the execution must end: livelock, good-samaritan or step-limit.
  const std::optional<StrategyVerdict>& Verdict() const { return verdict_; }

  // A real yield (not one forced on the thread by the backstop or the syscall budget).
  static bool IsYield(const SchedulingContext& context);
  // The backstop stopped a thread that computed for a whole slice without a syscall.
  static bool IsSpinInterrupt(const SchedulingContext& context);

 private:
  struct Spin {
    uint32_t interrupts = 0;  // in a row, each after everyone else had a turn, in one spot
    uint64_t where = 0;       // the spot: the supervisor's fingerprint of the thread's registers
    ThreadSet owed;           // threads that could run at the last interrupt and have not yet
    uint64_t at = 0;          // the decision of the last interrupt
  };
  void NoteSpin(const SchedulingContext& context, std::span<const ThreadId> schedulable);
  void JudgeAtLimit();
  uint64_t Window() const;

  LivenessLimits limits_;
  uint64_t steps_ = 0;
  std::vector<uint64_t> last_ran_;    // per thread: last decision that picked it, +1 (0: never)
  std::vector<uint64_t> last_yield_;  // per thread: last decision that saw it yield, +1
  std::vector<uint64_t> last_point_;  // per thread: last decision it stopped at a real point, +1
  std::map<uint32_t, Spin> spins_;
  std::optional<StrategyVerdict> verdict_;
};

}  // namespace chess::search
