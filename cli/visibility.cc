#include "cli/visibility.h"

#include <set>

namespace chess::cli {
namespace {

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// Whether the atomic layer had points and could patch `program`'s own code: only then may a
// blind spot say its atomic instructions were points.
bool AtomicsCovered(const supervisor::ProgramImage& program, const std::optional<AtomicPointsSeen>& atomics) {
  if (!atomics || (atomics->sites == 0 && atomics->planted == 0)) return false;
  for (const std::string& refused : atomics->refused) {
    if (refused.rfind(program.path, 0) == 0) return false;
  }
  return true;
}

// Why `program`'s threads synchronized out of the search's sight, or "" when they did not.
std::string BlindSpot(const supervisor::ProgramImage& program, SyncPoints level,
                      const std::optional<AtomicPointsSeen>& atomics) {
  if (!program.multithreaded || program.sync_ops > 0) return {};
  const std::string name = Basename(program.path);
  const std::string consequence =
      ". A bug that needs a thread switch between two such operations cannot be found (an uncontended lock or "
      "an atomic makes no syscall), and this search is no proof that there is none";
  if (level == SyncPoints::kSyscalls) {
    return name + " ran several threads, and its lock and condition-variable operations were not scheduling "
                  "points (--sync-points syscalls)" + consequence + ". Leave out --sync-points syscalls";
  }
  if (level >= SyncPoints::kAtomics && AtomicsCovered(program, atomics)) {
    // The atomic layer saw part of what the shim could not, and the race layer part of the
    // rest: not all of it.
    const std::string seen =
        level >= SyncPoints::kRaces
            ? "; its atomic instructions were points while another thread lived, and so were the plain accesses "
              "a sampling execution found racing (--sync-points races), but its atomic loads, and the plain "
              "accesses whose races the sample missed, were not"
            : "; its atomic instructions were points while another thread lived (--sync-points atomics), "
              "but its atomic loads, plain stores and other memory accesses were not";
    return name + " ran several threads and announced no pthread or C11 sync call" +
           (program.linking == supervisor::Linking::kStatic ? " (it is statically linked)" : "") + seen +
           ". A bug that needs a thread switch between two of those cannot be found, and this search is no proof "
           "that there is none";
  }
  switch (program.linking) {
    case supervisor::Linking::kStatic:
      return name + " is statically linked, so the preload shim cannot enter it: its lock, condition-variable "
                    "and atomic operations were not scheduling points" + consequence +
             ". Link it dynamically to search it (docs/limitations.md)";
    case supervisor::Linking::kDynamic:
      return name + " ran several threads but made no pthread or C11 sync call (lock, condition variable, "
                    "semaphore, barrier): it synchronizes another way (Rust's std::sync, Go, C11 atomics, "
                    "lock-free code), and such operations are not scheduling points" + consequence +
             " (docs/limitations.md)";
    case supervisor::Linking::kUnknown:
      break;
  }
  return name + " ran several threads, and none of its sync operations was a scheduling point" + consequence;
}

// A shell, or a program that only exec'd another (env, a version manager's shim): a wrapper.
bool Wrapper(const supervisor::ProgramImage& program) {
  static const std::set<std::string> kShells = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox", "env"};
  return kShells.contains(Basename(program.path)) || (program.replaced > 0 && !program.multithreaded);
}

// When most decisions went to wrappers, the program to --focus on: the one with the most
// decisions among the others, preferring one that ran threads.
std::string WrapperHint(const std::vector<supervisor::ProgramImage>& programs) {
  uint64_t total = 0, wrapped = 0;
  std::string wrappers;
  const supervisor::ProgramImage* candidate = nullptr;
  for (const supervisor::ProgramImage& program : programs) {
    total += program.decisions;
    if (Wrapper(program)) {
      wrapped += program.decisions;
      if (program.decisions > 0) wrappers += (wrappers.empty() ? "" : ", ") + Basename(program.path);
      continue;
    }
    const bool better = candidate == nullptr || (program.multithreaded && !candidate->multithreaded) ||
                        (program.multithreaded == candidate->multithreaded && program.decisions > candidate->decisions);
    if (better) candidate = &program;
  }
  // Too few decisions to matter, or not mostly wrappers: no advice.
  if (total < 1000 || wrapped * 2 <= total) return {};
  std::string text = std::to_string(wrapped * 100 / total) +
                     "% of the decisions that had a choice were taken in shells and in wrappers that exec'd "
                     "another program (" + wrappers + "), whose interleavings are seldom of interest";
  if (candidate != nullptr) {
    text += ": --focus " + Basename(candidate->path) + " searches only " + Basename(candidate->path) +
            "'s threads and runs the others without preemptions";
  } else {
    text += ": --focus NAME searches only the threads of the program NAME";
  }
  return text;
}

}  // namespace

void VisibilityTally::Add(const std::vector<supervisor::ProgramImage>& images) {
  for (const supervisor::ProgramImage& image : images) {
    auto [found, fresh] = by_path_.emplace(image.path, programs_.size());
    if (fresh) {
      programs_.push_back(image);
      continue;
    }
    supervisor::ProgramImage& known = programs_[found->second];
    known.multithreaded = known.multithreaded || image.multithreaded;
    known.sync_ops += image.sync_ops;
    known.decisions += image.decisions;
    known.replaced += image.replaced;
  }
}

SearchVisibility VisibilityTally::Summarize(SyncPoints level, const std::vector<std::string>& focus) const {
  SearchVisibility visibility;
  visibility.programs = programs_;
  visibility.focus = focus;
  if (focus.empty()) {
    if (std::string hint = WrapperHint(programs_); !hint.empty()) visibility.hints.push_back(std::move(hint));
  }
  visibility.visible_layers.push_back("syscalls");
  bool sync_ops = false;
  for (const supervisor::ProgramImage& program : programs_) {
    sync_ops = sync_ops || program.sync_ops > 0;
    if (std::string why = BlindSpot(program, level, atomics_); !why.empty()) visibility.blind_spots.push_back(std::move(why));
  }
  if (sync_ops) visibility.visible_layers.push_back("sync-ops");
  if (level >= SyncPoints::kProcesses) visibility.visible_layers.push_back("cross-process");
  if (level >= SyncPoints::kAtomics && atomics_) {
    visibility.visible_layers.push_back("atomics");
    visibility.atomics = atomics_;
    if (level >= SyncPoints::kRaces && atomics_->races_looked_for) visibility.visible_layers.push_back("races");
  }
  return visibility;
}

}  // namespace chess::cli
