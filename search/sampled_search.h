// SampledSearch: the randomized strategies as an engine — every execution a fresh sample from
// its own seed, derived from the search's seed and the sample's number, so that the same
// command draws the same samples and any one of them can be drawn again alone. It never runs
// out of work; the limits end it.
#pragma once

#include <cstdint>

#include "search/search_engine.h"

namespace chess::search {

class SampledSearch final : public SearchEngine {
 public:
  // `kind`: kRandom or kPct.
  SampledSearch(StrategyKind kind, uint64_t seed, uint32_t pct_depth, LivenessLimits liveness);

  StrategyKind Kind() const override { return kind_; }
  std::optional<SearchEnd> Finished() const override { return std::nullopt; }
  EngineStep Step(ExecutionBackend& backend, ExplorationResult& result) override;
  void Progress(ExplorerProgress& progress) const override { (void)progress; }

  // The seed of sample `index` (0-based) of a search seeded with `seed`.
  static uint64_t SampleSeed(StrategyKind kind, uint64_t seed, uint64_t index);

 private:
  StrategyKind kind_;
  uint64_t seed_;
  uint32_t pct_depth_;
  LivenessLimits liveness_;
  uint64_t samples_ = 0;
  uint64_t longest_ = 0;  // the most choice steps an execution took so far: PCT's k
};

}  // namespace chess::search
