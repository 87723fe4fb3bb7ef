// State caching for the bounded search (CHESS; research/search-and-peers.md §A.3.1). Two
// schedules that ran the same synchronization operations in the same per-thread and per-object
// orders have the same happens-before graph, and — if the program has no data race, so that
// every interaction between threads is one of those operations — reach the same state. From a
// state already searched with no more of the bound spent (preemptions, or delays), going on finds
// nothing new: the search prunes there.
//
// The fingerprint of the graph is a commutative sum over the executed operations of a hash of
// (thread, object, operation, its index in its thread, its index on its object) — the multiset
// of those tuples determines the graph (Maple's PorStateMatch). An operation on no particular
// object (resource 0) is ordered with every other such operation: conservative, never unsound.
// A data race — threads that talk through plain memory — makes two different states look the
// same, so caching is sound for race-free programs only (docs/explore.md says so).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "search/scheduling_point.h"
#include "search/strategy_kind.h"

namespace chess::search {

class HappensBeforeHash {
 public:
  // `thread` carried out `operation` (the point it had stopped at). `fired_early`: its deadline
  // was made to come now, which moves every thread's clock.
  void Executed(ThreadId thread, const SchedulingPoint& operation, bool fired_early);
  uint64_t Value() const { return sum_; }

 private:
  uint64_t Count(std::vector<uint64_t>& counts, size_t index);
  std::vector<uint64_t> per_thread_;
  std::unordered_map<uint64_t, uint64_t> per_object_;
  uint64_t sum_ = 0;
};

// The states a search has visited, each with the least of the bound it was reached with, per
// thread that ran last. Under preemption bounding a state reached again with another thread last
// may still be covered: the earlier visit's continuations cost at most one preemption more from
// the new visit (its first switch away from the thread that ran last, when that one could have
// gone on), so the rule is p_old + [different last thread, which could have gone on] ≤ p_new
// (research note §A.3.1). Under delay bounding the thread that ran last is where the round robin
// starts, and from another one the same continuation may cost any number of delays more: only a
// visit with the same thread last covers, d_old ≤ d_new.
struct StateVisit;

class StateCache {
 public:
  // Who ran last in a state, and whether it could simply go on (a switch away costs then).
  struct Last {
    uint32_t thread = UINT32_MAX;  // UINT32_MAX: nobody yet
    bool may_go_on = false;
    bool operator==(const Last&) const = default;
  };

  // Memory stays bounded: past `capacity` entries, new ones are no longer remembered (the
  // search only prunes less).
  // `bounding`: pb or db, what the search spends.
  explicit StateCache(StrategyKind bounding = StrategyKind::kPb, size_t capacity = size_t{1} << 22)
      : bounding_(bounding), capacity_(capacity) {}

  // True when `state` (the happens-before graph and the fairness state) was reached before in a
  // way that covers this visit, having spent `spent` of the bound; otherwise the visit is
  // remembered.
  bool Visit(uint64_t state, Last last, uint32_t spent);

  size_t Size() const { return entries_; }

  // An execution's states, visited in its order (StateVisit below) up to the first one searched
  // before: the decision from which its alternatives add nothing (nullopt: none). The visits
  // after it are not remembered — what pruning during the execution would have done.
  std::optional<size_t> Prune(const std::vector<StateVisit>& visits);

 private:
  struct Entry {
    Last last;
    uint32_t spent = 0;
  };
  // What the earlier visit's continuations may cost more from this one, with `last` last;
  // nullopt: no bound (the visit covers nothing).
  std::optional<uint32_t> SwitchCost(const Entry& visit, Last last) const;

  StrategyKind bounding_;
  size_t capacity_;
  size_t entries_ = 0;
  std::unordered_map<uint64_t, std::vector<Entry>> visited_;
};

// A state an execution reached at a decision where it could have branched: what the state cache
// is asked about it, recorded during the execution and put to the cache when the search takes
// the execution in (BranchRun), so that the order executions ran in never matters.
struct StateVisit {
  size_t decision = 0;
  uint64_t state = 0;
  StateCache::Last last;
  uint32_t spent = 0;
};

}  // namespace chess::search
