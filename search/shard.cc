#include "search/shard.h"

#include <charconv>

#include "search/mix.h"

namespace chess::search {
namespace {

// A whole number in decimal digits only (no sign, no spaces), or nullopt.
std::optional<uint64_t> Number(std::string_view text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

ShardParse ParseShard(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string quoted = "`" + std::string(text) + "`";
  if (slash == std::string_view::npos) return {std::nullopt, quoted + " is not I/N (e.g. 2/4: the second of 4 shards)"};
  const std::optional<uint64_t> index = Number(text.substr(0, slash));
  const std::optional<uint64_t> count = Number(text.substr(slash + 1));
  if (!index || !count) return {std::nullopt, quoted + " is not I/N: both must be whole numbers (e.g. 2/4)"};
  if (*count == 0 || *count > kMaxShards) {
    return {std::nullopt, quoted + ": N must be from 1 to " + std::to_string(kMaxShards)};
  }
  if (*index == 0 || *index > *count) {
    return {std::nullopt, quoted + ": I must be from 1 to N (" + std::to_string(*count) + "); shards are numbered from 1"};
  }
  return {Shard{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count)}, {}};
}

uint64_t ScheduleDigest(const std::vector<RecordedDecision>& decisions) {
  uint64_t digest = Mix64(decisions.size());
  for (const RecordedDecision& decision : decisions) digest = ScheduleStep(digest, decision);
  return digest;
}

uint64_t ScheduleStep(uint64_t digest, const RecordedDecision& decision) {
  return Mix64(digest, (uint64_t{decision.picked.value} << 1) | (decision.fired_early ? 1 : 0));
}

}  // namespace chess::search
