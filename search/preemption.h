// What a scheduling decision costs under preemption bounding (PLDI'07, design §4), for every
// strategy that counts preemptions: the bounded search branches on it, the randomized ones
// report it and minimization searches below it.
#pragma once

#include <algorithm>
#include <span>

#include "search/strategy.h"

namespace chess::search {

inline bool Contains(std::span<const ThreadId> threads, ThreadId thread) {
  return std::find(threads.begin(), threads.end(), thread) != threads.end();
}

// Whether running `picked` at `context` costs a preemption: it preempts the thread that ran
// last, which stopped at a point where it could simply go on and fairness would have let it (a
// switch after a block, an exit, a yield, or one fairness forces is free) — or it fires a
// deadline ahead of time (`picked` is not enabled: a timed wait times out, a sleep ends, while
// others could still run).
inline bool CostsPreemption(const SchedulingContext& context, ThreadId picked, std::span<const ThreadId> schedulable) {
  if (!Contains(context.enabled, picked)) return true;
  return context.current && picked != *context.current && context.current_stop == StopReason::kReachedPoint &&
         Contains(schedulable, *context.current);
}

// A stop no strategy branches at: the backstop interrupted a thread that computed for a slice,
// or the syscall budget made it give way. Where such a stop falls depends on timing or on
// counting, not on the program's synchronization, so it is a forced yield (design §3).
inline bool IsForcedYield(const SchedulingContext& context) {
  return context.current && context.current_stop == StopReason::kYielded &&
         (context.point.op == OpKind::kInterrupted || context.point.op == OpKind::kFairnessYield);
}

// After a forced yield: the next schedulable thread after the one that gave way, cyclically in
// creation order, or that thread itself when it is alone.
inline ThreadId NextAfterForcedYield(ThreadId current, std::span<const ThreadId> schedulable) {
  ThreadId picked = current;
  for (ThreadId thread : schedulable) {
    if (thread == current) continue;
    if (picked == current || (picked < current && thread > current)) picked = thread;
  }
  return picked;
}

}  // namespace chess::search
