// The search strategies a user chooses from (explore --strategy), with the one table of their
// names: a strategy is a StrategyKind everywhere, and its name is read or written only at the
// edges (the command line, reports, progress lines).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace chess::search {

// The values are part of every search's determinism: a randomized strategy's samples are drawn
// from a stream chosen by its value (SampledSearch::SampleSeed), so they must not change.
enum class StrategyKind : uint8_t {
  kPb,         // iterative preemption bounding
  kRandom,     // a random walk
  kPct,        // probabilistic concurrency testing
  kPortfolio,  // pb, pct and random in turn
  kDb,         // iterative delay bounding
};

// In the order --help and its errors list them.
inline constexpr std::array<std::pair<StrategyKind, std::string_view>, 5> kStrategyNames{{
    {StrategyKind::kPb, "pb"},
    {StrategyKind::kDb, "db"},
    {StrategyKind::kPct, "pct"},
    {StrategyKind::kRandom, "random"},
    {StrategyKind::kPortfolio, "portfolio"},
}};

constexpr std::string_view StrategyName(StrategyKind kind) {
  for (const auto& [named, name] : kStrategyNames) {
    if (named == kind) return name;
  }
  return {};
}

constexpr std::optional<StrategyKind> ParseStrategy(std::string_view name) {
  for (const auto& [kind, named] : kStrategyNames) {
    if (named == name) return kind;
  }
  return std::nullopt;
}

// Whether choosing `chosen` runs `engine` (pb, db, pct or random): the portfolio runs pb, pct
// and random.
constexpr bool Runs(StrategyKind chosen, StrategyKind engine) {
  return chosen == engine || (chosen == StrategyKind::kPortfolio && engine != StrategyKind::kDb);
}

// Whether `kind` searches systematically, bound by bound (pb, db): its first execution is the
// non-preemptive one, its bugs come with the fewest preemptions or delays there are for them, and
// its coverage is a statement.
constexpr bool Bounded(StrategyKind kind) { return kind == StrategyKind::kPb || kind == StrategyKind::kDb; }

}  // namespace chess::search
