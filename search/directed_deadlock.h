// DirectedDeadlock: an execution that tries to make a predicted deadlock cycle happen —
// DeadlockFuzzer (Joshi's thesis, ch. 7; ../shared/research/seed-joshi-thesis.md §A.2). A thread
// stopped where it is about to take a step of the cycle (the same acquisition site, holding
// locks taken where the step's were, the same lock when the lock has a fixed address) is paused
// while it holds its lockset; the others run. Once every step has a paused thread and their
// locks chain (each holds the lock the one before it asks for), all are let go together and
// block on each other: a real deadlock, which the supervisor reports like any other. When every
// thread that could run is paused (thrashing), one of them, chosen by the seed, goes on.
// Otherwise the running thread keeps running (few preemptions, a readable trace), and a switch
// away from a paused or blocked thread goes to one chosen by the seed.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "search/lock_dependency.h"
#include "search/sampled_execution.h"

namespace chess::search {

class DirectedDeadlock final : public SampledExecution {
 public:
  // `cycle`: the prediction to confirm; `kinds`: its locks' kinds, from the execution it was
  // predicted from; `attempt`: which of the cycle's directed executions this is (its seed).
  DirectedDeadlock(PredictedCycle cycle, std::map<uint64_t, LockKind> kinds, uint64_t seed, uint64_t attempt,
                   LivenessLimits limits);

  [[nodiscard]] std::string Describe() const override;

  // Whether every step had its paused thread and all were let go together.
  bool Released() const { return released_; }

  // A thread paused for this many of its decisions goes on anyway: the others may be waiting for
  // it in a way no lock shows (a spin on a flag it sets).
  static constexpr uint64_t kMaxPausedDecisions = 20'000;

 protected:
  ThreadId Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) override;
  void Stopped(const SchedulingContext& context) override;

 private:
  struct Paused {
    ThreadId thread;
    LockDependency request;
    uint64_t since = 0;  // the decision it was paused at
  };

  // Whether `request` is the cycle's step `step` taken again: the same acquisition site, locks
  // held that were taken at the step's sites, and the same locks where they have fixed addresses.
  bool Matches(const LockDependency& request, size_t step) const;
  // Whether a thread asking `request` at `step` fits the threads paused at the neighbouring steps:
  // it holds what the one before asks for, and the one after holds what it asks for.
  bool Chains(const LockDependency& request, size_t step) const;
  bool IsPaused(ThreadId thread) const;
  void Unpause(ThreadId thread);

  PredictedCycle cycle_;
  std::map<uint64_t, LockKind> kinds_;
  uint64_t attempt_;
  std::map<size_t, Paused> paused_;  // by step
  bool released_ = false;
  uint64_t decisions_ = 0;
};

}  // namespace chess::search
