// The randomized strategies (research/search-and-peers.md §A.4): each execution is one sample,
// drawn from its own seed, under the same fairness rules and liveness verdicts as the bounded
// search. SampledExecution does the shared part — fairness, forced yields, the record of the
// decisions and their preemptions — and its subclasses choose: RandomWalk uniformly, PCT by
// priorities.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "search/fair_decisions.h"
#include "search/random.h"
#include "search/replay_strategy.h"
#include "search/strategy.h"

namespace chess::search {

class SampledExecution : public Strategy {
 public:
  SampledExecution(uint64_t seed, LivenessLimits limits) : seed_(seed), random_(seed), fair_(limits) {}

  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) final;
  [[nodiscard]] std::optional<StrategyVerdict> Verdict() const override { return fair_.Verdict(); }

  uint64_t Seed() const { return seed_; }
  const std::vector<RecordedDecision>& Decisions() const { return fair_.Decisions(); }
  uint32_t Preemptions() const { return fair_.Preemptions(); }
  const std::vector<size_t>& PreemptionDecisions() const { return fair_.PreemptionDecisions(); }
  // Decisions at which more than one thread could have been picked.
  uint64_t ChoiceSteps() const { return choice_steps_; }

 protected:
  // Picks from `candidates`: the schedulable threads (creation order), then the threads whose
  // deadline could be fired early. Never empty; called only when it has more than one element.
  virtual ThreadId Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) = 0;
  // Told of every decision where a thread stopped, before choosing.
  virtual void Stopped(const SchedulingContext& context) { (void)context; }
  // A number in [0, bound), from this execution's seed.
  uint64_t Uniform(uint64_t bound) { return bound == 0 ? 0 : random_.Next() % bound; }

 private:
  uint64_t seed_;
  SeededRandom random_;
  FairDecisions fair_;
  uint64_t choice_steps_ = 0;
};

// A random walk: every schedulable thread, and every deadline that could fire, equally likely at
// every decision.
class RandomWalk final : public SampledExecution {
 public:
  using SampledExecution::SampledExecution;
  [[nodiscard]] std::string Describe() const override;

 protected:
  ThreadId Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) override;
};

// PCT (Burckhardt et al., ASPLOS'10): threads get distinct random priorities; the highest that
// can run runs; at d−1 random steps of the estimated k the running thread drops below every
// initial priority. A bug of depth d shows with probability ≥ 1/(n·k^(d−1)) per execution. A
// deadline is a candidate like a thread: the highest thread may be one whose timed wait is fired
// early. A thread that yields drops below everyone — otherwise a spin-and-yield loop of the
// highest thread would run forever — and so does one whose deadline was fired early, once it
// next stops short of a point (blocks again, yields, exits): until then it goes on, as the
// timeout path it was sent down.
class PctExecution final : public SampledExecution {
 public:
  // `depth`: d; `estimated_steps`: k, the choice steps of the search's first sample (0 for the
  // first itself: no change points).
  PctExecution(uint64_t seed, LivenessLimits limits, uint32_t depth, uint64_t estimated_steps);
  [[nodiscard]] std::string Describe() const override;

 protected:
  ThreadId Choose(const SchedulingContext& context, std::span<const ThreadId> candidates) override;
  void Stopped(const SchedulingContext& context) override;

 private:
  int64_t& PriorityOf(ThreadId thread);
  void Lower(ThreadId thread) { PriorityOf(thread) = --floor_; }

  uint32_t depth_;
  uint64_t estimated_steps_;
  std::vector<uint64_t> change_steps_;  // choice steps at which the running thread drops
  std::vector<std::optional<int64_t>> priority_;  // per thread; higher runs first
  int64_t floor_ = 0;  // below every priority given so far: where yielding threads go
  std::vector<ThreadId> fired_;  // deadlines fired early whose threads have not stopped since
  uint64_t steps_ = 0;
};

}  // namespace chess::search
