// What a search could see, for its verdict: the layers of scheduling points it used and, for
// each program whose threads ran side by side, whether their sync operations were points. A "no
// bug" over a program whose threads synchronize where no point lies (Rust's std::sync, Go, C11
// atomics, a statically linked libc) is no proof, and the report must say so.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/atomic_point_learning.h"
#include "cli/execution.h"
#include "supervisor/program_images.h"

namespace chess::cli {

struct SearchVisibility {
  // The layers that gave the search points: "syscalls" always; "sync-ops" where the preload
  // shim announced pthread/C11 operations; "cross-process" with --sync-points processes;
  // "atomics" with --sync-points atomics; "races" with --sync-points races.
  std::vector<std::string> visible_layers;
  // --sync-points atomics and races: the sites, the races, and what the executions saw of them.
  std::optional<AtomicPointsSeen> atomics;
  // Every program the tree ran, as the executions saw it (multithreaded in any of them, its
  // sync operations summed).
  std::vector<supervisor::ProgramImage> programs;
  // A program that ran several threads whose sync operations were no scheduling points: a
  // sentence each, saying which program, why, and what the search therefore could not find.
  std::vector<std::string> blind_spots;
  // --focus, when given: the programs whose threads were searched.
  std::vector<std::string> focus;
  // Advice on where the search spent itself: most decisions in shells and wrappers that
  // exec'd again, with the --focus that would search the program under test instead.
  std::vector<std::string> hints;
};

// The programs of every execution of a search, merged.
class VisibilityTally {
 public:
  void Add(const std::vector<supervisor::ProgramImage>& images);
  // The search's atomic points (what they were learned from), and each execution's count.
  void UseAtomicPoints(const AtomicPointsSeen& learned) { atomics_ = learned; }
  void AddAtomics(const search::AtomicPointCount& count) {
    if (atomics_) atomics_->Add(count);
  }
  SearchVisibility Summarize(SyncPoints level, const std::vector<std::string>& focus = {}) const;

 private:
  std::vector<supervisor::ProgramImage> programs_;  // in the order first seen
  std::map<std::string, size_t> by_path_;
  std::optional<AtomicPointsSeen> atomics_;
};

}  // namespace chess::cli
