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
};

}  // namespace chess::search
