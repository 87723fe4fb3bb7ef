// Atomic points: which atomic instructions of the program are scheduling points. Every one of the
// program's code is, whenever another thread lives (alone, a thread has no one to give way to),
// except those a first execution found to run only while their thread was alone: that execution
// stops at every atomic instruction and parks at none (kLearn), and the search's executions
// (kPoints) plant no breakpoint at the sites it saw only alone — start-up before the first
// thread, the end after the last join — which would cost a stop each and never be a point. The
// plan is the same in every execution of a search and in a replay of one of its traces, so the
// schedule space does not change under the search's feet. A site the first execution never
// reached (a CAS only a lost race takes) is planted. Pure data: the supervisor plants and stops,
// the commands decide the mode, traces keep the plan.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace chess::search {

// An instruction of the program, named the same way in every execution and every process that
// maps its file: the file's path as the process mapped it, and the instruction's address in the
// file's own numbering (p_vaddr; the run-time address minus the mapping's load bias).
struct CodeLocation {
  std::string module;
  uint64_t address = 0;
  auto operator<=>(const CodeLocation&) const = default;
};

struct AtomicPointPlan {
  enum class Mode : uint8_t {
    kLearn,   // stop at every atomic instruction, park at none; note which ran beside another thread
    kPoints,  // park before every atomic instruction while another thread lives, but `alone_sites`
  };
  Mode mode = Mode::kLearn;
  // kPoints: the sites the learning execution ran only while their thread was alone: no
  // breakpoint there.
  std::set<CodeLocation> alone_sites;
  // How many atomic points one execution may park at; past it the rest run through, and the
  // execution says so (a program with millions of atomic operations still finishes). Counted in
  // the order the execution reaches them, so a replay stops at the same ones.
  uint64_t max_points = 10'000;

  // Race points (the races layer). kLearn: also look for data races, DataCollider's way: a
  // one-shot breakpoint before each plain memory-access instruction (up to max_sampled_sites, the
  // first mapped first: the program before its libraries), a watchpoint in every other thread on
  // what each sampled access touched, and what the watchpoints see judged against the
  // happens-before of the operations the supervisor saw (search/race_detector.h).
  bool detect_races = false;
  uint64_t max_sampled_sites = 50'000;
  // The orderings (atomic instructions, libc's own locks) races are judged against, at most: each
  // is a stop. Past it the learning execution stops looking for races — its breakpoints at
  // samples and at libc's locks go, its watchpoints too — and goes on as an atomics-level one: a
  // program with millions of atomic operations still ends its learning execution in seconds.
  uint64_t max_race_orderings = 500'000;
  // kPoints: the plain memory-access instructions a learning execution found racing. Each is a
  // scheduling point (OpKind::kRacyAccess) while another thread lives, planted wherever it is
  // (alone_sites do not apply: a race took two threads), and counted in max_points.
  std::set<CodeLocation> race_sites;
};

// One of a data race's two accesses.
struct RacingAccess {
  // The instruction; module empty when it lies outside the decoded code (a library not planted
  // in, such as libc under the shim): then address is its run-time address, and it cannot become
  // a point.
  CodeLocation instruction;
  uint32_t thread = 0;  // the execution's thread number (ThreadId::value)
  bool is_write = false;
  uint8_t size = 0;     // bytes
  std::string name;     // "worker+0x1b (plain.c:29)" when symbols say, else the address in hex
};

// Two accesses to the same memory by different threads, at least one a write, that no
// synchronization the supervisor saw ordered: a data race (reported, not a bug).
struct ObservedRace {
  RacingAccess earlier;  // the one that ran first in the learning execution
  RacingAccess later;
  uint64_t address = 0;  // the first byte both touched, as the process sees it
  std::string variable;  // "claimed (plain_check_then_act_buggy)" when symbols name it, else empty
};

// What an execution with atomic points saw of them (ExecutionResult::atomics).
struct AtomicPointCount {
  uint64_t planted = 0;        // breakpoints planted, over every image of the tree
  uint64_t stops = 0;          // times a thread stopped at one
  uint64_t points = 0;         // of those, scheduling points (kPoints)
  bool capped = false;         // max_points was reached: later atomic operations ran through
  std::set<CodeLocation> shared;  // kLearn: the sites run while another thread was alive
  std::set<CodeLocation> alone;   // kLearn: the sites run, but only while their thread was alone
  uint64_t learned_sites = 0;  // kLearn: the sites any thread executed
  // Files whose code could not be decoded or patched, and why (a JIT's writable code).
  std::set<std::string> refused;
  // The atomic instructions the execution parked before, by address, as a report names them
  // ("pop+0x2a (treiber.c:41)"): only when it takes stacks for a report (a bug's run).
  std::map<uint64_t, std::string> instruction_names;
  // The same instructions as the plan names them (module and file offset): what tells a race's
  // instruction apart from another with the same symbol and offset in another module.
  std::map<uint64_t, CodeLocation> instruction_locations;

  // Race detection (kLearn with detect_races).
  uint64_t sampled_sites = 0;     // memory-access instructions given a sample breakpoint
  uint64_t sampled_accesses = 0;  // of those, reached: an access sampled, its memory watched
  uint64_t watched_accesses = 0;  // accesses the watchpoints saw
  bool sampling_capped = false;   // more memory-access instructions than max_sampled_sites
  bool race_detection_cut_short = false;  // max_race_orderings reached: later races not looked for
  std::vector<ObservedRace> races;  // each pair of instructions once, in the order found
  // kPoints: of `points`, those before a racing plain access (kRacyAccess).
  uint64_t race_points = 0;
};

}  // namespace chess::search
