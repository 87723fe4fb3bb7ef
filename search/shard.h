// Shard: one of N parts of a search, for N processes or machines that split it between them
// (`--shard I/N`, docs/scale.md). The partition depends only on the program, the strategy, the
// bound and the seed — never on timing — so the N shards together run every schedule of the
// whole search exactly once. Each shard first runs a common trunk, since no shard can branch
// from an execution it did not run; what it runs of the trunk that another shard owns is a
// replayed prefix, counted apart from its executions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/replay_strategy.h"

namespace chess::search {

struct Shard {
  uint32_t index = 1;  // 1-based
  uint32_t count = 1;

  bool Whole() const { return count == 1; }
  // Whether work dealt at `rank` (0-based, in the order every shard deals it) is this shard's.
  bool Owns(uint64_t rank) const { return rank % count == index - 1; }
  std::string Name() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 1 ≤ I ≤ N ≤ kMaxShards; the error says what is wrong.
struct ShardParse {
  std::optional<Shard> shard;
  std::string error;
};
inline constexpr uint32_t kMaxShards = 1'000'000;
ShardParse ParseShard(std::string_view text);

// A schedule's identity, from its decisions (which thread ran at each, and whether a deadline
// was fired for it): two executions with the same digest followed the same schedule. Summed
// over a set of schedules, it names the set whatever order they ran in — what lets the shards
// of a search be checked against the search run whole.
uint64_t ScheduleDigest(const std::vector<RecordedDecision>& decisions);
// One decision more of a digest of decisions (what ScheduleDigest folds in for each, after their
// count): a schedule's prefix hashed as it grows.
uint64_t ScheduleStep(uint64_t digest, const RecordedDecision& decision);

}  // namespace chess::search
