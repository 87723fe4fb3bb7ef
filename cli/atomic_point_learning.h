// The atomic layer of a search (--sync-points atomics), and the race layer above it (races).
// Before the search's first execution, one execution learns which atomic instructions the
// program runs only while their thread is alone — and, with races, samples memory accesses for
// data races; every other atomic instruction, and both instructions of every race found, is a
// point of every execution (a kPoints plan), the same in each, so that the schedule space does
// not change under the search. AtomicPointsSeen is what the executions then saw of them, for the
// coverage sentence and --report.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/execution.h"
#include "search/atomic_points.h"
#include "search/liveness_monitor.h"
#include "search/outcome.h"

namespace chess::cli {

class JsonWriter;

// The plan of an execution that learns the atomic points: it stops at every atomic instruction
// and parks at none; at `level` races it also looks for data races.
search::AtomicPointPlan LearningPlan(SyncPoints level = SyncPoints::kAtomics);

// What one execution, or a search's executions together, saw of the atomic points.
struct AtomicPointsSeen {
  uint64_t sites = 0;          // the sites that ran beside another thread when they were learned
  uint64_t alone_sites = 0;    // the sites that ran only alone then: not planted in the search
  uint64_t learned_sites = 0;  // every site a thread executed while they were learned (0: not
                               // learned by this command: a replay's sites come from its trace)
  uint64_t max_points = 0;     // the cap per execution
  uint64_t planted = 0;        // summed over the executions
  uint64_t stops = 0;
  uint64_t points = 0;
  uint64_t executions = 0;
  uint64_t capped_executions = 0;  // executions that reached max_points: the rest ran through
  std::set<std::string> refused;   // files whose code could not be decoded or patched, and why

  // The race layer (--sync-points races); all empty or 0 without it.
  bool races_looked_for = false;   // a learning execution sampled memory accesses for races
  std::vector<search::ObservedRace> races;  // the data races it found, in the order found
  uint64_t race_sites = 0;         // the instructions of those races that are points
  uint64_t sampled_sites = 0;      // summed over the executions, as the rest
  uint64_t sampled_accesses = 0;
  uint64_t watched_accesses = 0;
  bool sampling_capped = false;    // some execution had more memory-access instructions than it may sample
  bool race_detection_cut_short = false;  // the learning execution stopped looking for races partway
  uint64_t race_points = 0;        // of `points`, those before a racing plain access

  // One execution with `plan` (empty: the layer was off, and so is the result).
  static std::optional<AtomicPointsSeen> Of(const std::optional<search::AtomicPointPlan>& plan,
                                            const search::AtomicPointCount& count);
  // One more execution of a search, under the search's plan.
  void Add(const search::AtomicPointCount& count);
  // The "atomic_points" object of --report.
  void WriteJson(JsonWriter& json) const;
  // For a search: the race layer's counts and races, as a learning execution `learned` saw them
  // and the plan made points of them.
  void UseRaces(const search::AtomicPointCount& learned, const search::AtomicPointPlan& plan);
};

// The learning execution and the plan it gives.
class AtomicPointLearning {
 public:
  // `level`: atomics, or races (the learning execution also looks for data races, and the plan
  // makes their instructions points).
  AtomicPointLearning(uint64_t max_points, SyncPoints level) : max_points_(max_points), level_(level) {}

  // Runs the learning execution: the schedule of pb's first execution (no preemption, fair, and
  // ended by `limits` as the search's executions are: a livelock must not run forever), every
  // atomic instruction a stop and none a point, its output captured and dropped. No fork
  // server: the search's first execution makes the template, as it would without this one. Not
  // one of the search's executions and never a trace: if it fails (a crash, an assertion), the
  // search's first execution runs the same schedule and reports it.
  void Learn(const PreparedExecution& execution, const search::LivenessLimits& limits);
  // What a learning execution saw and how it ended (Learn's own, or a test's).
  void Learned(const search::AtomicPointCount& count, search::Outcome outcome);

  // Every execution of the search parks before every atomic instruction while another thread
  // lives, and plants nothing at the sites the learning execution ran only alone; with races,
  // also before both instructions of every data race it found.
  search::AtomicPointPlan Plan() const;
  // "atomic points: every atomic instruction but the 5 that ran only while their thread was alone
  // (3 of the 8 executed ran beside another thread)", and with races "; race points: …"
  // (RaceSentence).
  std::string Sentence() const;
  // The data races the learning execution found (none below races), in the order found.
  const std::vector<search::ObservedRace>& Races() const { return learned_.races; }
  // For a search: how the learning execution ended when it failed, and that the search still
  // runs its schedule; "" when it did not.
  std::string FailureNote() const;
  // The search's tally, to which its executions are added.
  AtomicPointsSeen Seen() const;

 private:
  uint64_t max_points_;
  SyncPoints level_;
  search::AtomicPointCount learned_;
  search::Outcome outcome_ = search::Outcome::kOk;
};

}  // namespace chess::cli
