// SampledSearch: the randomized strategies as an engine — every execution a fresh sample from
// its own seed, derived from the search's seed and the sample's number, so that the same
// command draws the same samples and any one of them can be drawn again alone: a sample depends
// on the seed, its number and (PCT's k) the first sample's length only, never on which samples
// ran before it, so that shards can split the numbers between them. It never runs out of work;
// the limits end it.
#pragma once

#include <cstdint>
#include <optional>

#include "search/branch_run.h"
#include "search/search_engine.h"
#include "search/shard.h"

namespace chess::search {

class SampledSearch final : public SearchEngine {
 public:
  // `kind`: kRandom or kPct.
  // `shard`: this process runs the samples whose number is dealt to it (search/shard.h).
  SampledSearch(StrategyKind kind, uint64_t seed, uint32_t pct_depth, LivenessLimits liveness, Shard shard = {});

  StrategyKind Kind() const override { return kind_; }
  std::optional<SearchEnd> Finished() const override { return std::nullopt; }
  EngineStep Step(ExecutionBackend& backend, ExplorationResult& result) override;
  void Progress(ExplorerProgress& progress) const override { (void)progress; }

  // The seed of sample `index` (0-based) of a search seeded with `seed`.
  static uint64_t SampleSeed(StrategyKind kind, uint64_t seed, uint64_t index);

 private:
  SampleRequest Request(uint64_t index) const;
  // -j: tells the runner the samples the next steps will ask for, so that its workers run them
  // ahead (PCT's only once the first sample gave k).
  void Announce(ExecutionBackend& backend) const;
  static constexpr size_t kAnnounced = 64;

  StrategyKind kind_;
  uint64_t seed_;
  uint32_t pct_depth_;
  LivenessLimits liveness_;
  Shard shard_;
  uint64_t samples_ = 0;  // the number of the next sample
  // PCT's k for every sample after the first: the first's choice steps. Every shard runs the
  // first sample to know it (counted as a replayed prefix where another shard owns it).
  std::optional<uint64_t> first_steps_;
  static constexpr int kFirstSampleRetries = 3;
  int first_retries_ = 0;
};

}  // namespace chess::search
