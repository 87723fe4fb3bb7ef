// The lock dependency relation of one execution, and the deadlock cycles it predicts: iGoodlock
// (Joshi's thesis, ch. 4; ../shared/research/seed-joshi-thesis.md §A.1). A thread that acquires a
// lock while it holds others adds a dependency: who, what it held (with where it took each), what
// it took and where. A chain of dependencies of distinct threads, each waiting for a lock the
// next one holds, with no lock that excludes them all held in common, closes into a potential
// deadlock cycle — predicted from a run that did not deadlock. Pure data: what an acquisition
// is, and where its thread and lock come from, is the caller's business (supervisor/, cli/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/thread_id.h"

namespace chess::search {

// How a lock is held or asked for: an rwlock's read lock is shared, everything else exclusive.
enum class LockMode : uint8_t { kExclusive, kShared };

// One lock held at an acquisition, and where it was taken.
struct HeldLock {
  uint64_t lock = 0;
  LockMode mode = LockMode::kExclusive;
  uint64_t site = 0;
  bool operator==(const HeldLock&) const = default;
  auto operator<=>(const HeldLock&) const = default;
};

// Thread `thread` asked for `lock` in `mode` at `site` while it held `held` (in the order taken).
// Threads, locks and sites are the caller's names for them, stable across executions where the
// caller can make them so (a static lock's address, a heap lock's allocation site and index; a
// thread's creation order; a call site as module and offset).
struct LockDependency {
  uint32_t thread = 0;
  std::vector<HeldLock> held;
  uint64_t lock = 0;
  LockMode mode = LockMode::kExclusive;
  uint64_t site = 0;
  bool operator==(const LockDependency&) const = default;
  auto operator<=>(const LockDependency&) const = default;
};

// What the relation needs to know of a lock beyond its name.
struct LockKind {
  // A shared hold blocks a shared request: a writer-preferring rwlock, where a waiting writer
  // queues later readers behind it. (glibc's default rwlock prefers readers.)
  bool writer_preferring = false;
  // The lock lives in a module's static storage: it has the same address in every execution of
  // the program (chess-trace turns address randomization off), so that address names it across
  // executions. A heap or stack lock's address can move with the schedule (per-thread malloc
  // arenas): only where it is taken names it.
  bool fixed_address = false;
  bool operator==(const LockKind&) const = default;
};

// Builds the relation from one execution's acquisitions and releases, in the order they happened
// (§4.3.1). A re-acquisition of a lock the thread holds (a recursive mutex, a second read lock)
// adds nothing and counts; a release takes one count, and the lock is let go at the last, wherever
// it is in the thread's stack (releases need not nest). A try-lock that failed is not an
// acquisition. Equal dependencies are kept once.
class LockDependencyRecorder {
 public:
  // What a thread asks for with the locks it holds already listed (the preload shim keeps that
  // list, releases and re-acquisitions included): a lock it holds already (a recursive mutex, a
  // second read lock) adds nothing; a lock held twice is listed once.
  void Asked(const LockDependency& request, LockKind kind);
  void Acquired(uint32_t thread, uint64_t lock, LockMode mode, uint64_t site, LockKind kind = {});
  void Released(uint32_t thread, uint64_t lock);
  // The thread is gone: what it still held is forgotten (a robust mutex's owner died).
  void Exited(uint32_t thread);

  const std::set<LockDependency>& Dependencies() const { return dependencies_; }
  const std::map<uint64_t, LockKind>& Kinds() const { return kinds_; }
  // Locks the thread holds now, in the order it took them.
  std::vector<HeldLock> Holding(uint32_t thread) const;

 private:
  struct Held {
    HeldLock lock;
    uint32_t count = 1;
  };
  std::map<uint32_t, std::vector<Held>> holding_;
  std::set<LockDependency> dependencies_;
  std::map<uint64_t, LockKind> kinds_;
};

// What a thread stopped at an acquisition that can wait (a lock call, not a try-lock or a timed
// one) asks for: the dependency it adds, and what the lock is.
struct LockRequest {
  LockDependency dependency;
  LockKind kind;
};

// Where a strategy learns what the threads stopped at lock acquisitions ask for (the supervisor,
// from the preload shim's list of held locks; a model in the tests).
class LockRequests {
 public:
  virtual ~LockRequests() = default;
  // What `thread`, stopped where it announced a lock acquisition that can wait, asks for; nullopt
  // for a thread stopped anywhere else.
  virtual std::optional<LockRequest> PendingOf(ThreadId thread) = 0;
  // How a report names a lock or a site of the requests given so far: "mutex_b (late_inversion)",
  // "worker+0x52 (late_inversion.c:31)". Empty when it cannot.
  virtual std::string Name(uint64_t address) = 0;
};

// What an execution showed of its locks: the dependency relation, each lock's kind, and the
// names of the locks and sites in it (for reports).
struct LockObservation {
  std::set<LockDependency> dependencies;
  std::map<uint64_t, LockKind> kinds;
  std::map<uint64_t, std::string> names;
  bool operator==(const LockObservation&) const = default;
  // The number of threads that asked for a lock: the longest cycle there can be.
  size_t Threads() const;
};

// A potential deadlock: thread i of the cycle holds what its dependency says and waits for the
// lock that thread i+1 holds (the last waits for the first's). The first thread has the smallest
// number, so each cycle is found once.
struct PredictedCycle {
  std::vector<LockDependency> steps;
  bool operator==(const PredictedCycle&) const = default;
};

struct CyclePrediction {
  // Each once: cycles that differ only in which threads took the steps (threads made in a loop
  // doing the same work) are one, found by the first threads that make it.
  std::vector<PredictedCycle> cycles;
  // Cycles a gate lock held in common rules out (predicted, then filtered), each once as cycles
  // are.
  uint64_t gated = 0;
  // The search for chains stopped at its budget: cycles longer than the ones found may be missed.
  bool cut_short = false;
};

// A cycle in a person's words, from the names `observed` has: each step as the lock it holds
// that the step before asks for, the lock it asks for, and where: "mutex_a (prog) → mutex_b
// (prog) in first+0x1c (prog) at prog.c:12, mutex_b (prog) → mutex_a (prog) in last+0x52 …".
std::string DescribeCycle(const PredictedCycle& cycle, const LockObservation& observed);

// iGoodlock's iterative closure (§4.3.2): chains of up to `max_length` dependencies (the number
// of threads is the longest a cycle can be), each extended only while it is not yet a cycle, so
// that a cycle made of smaller ones is not reported. `chain_budget`: the most chains it builds.
CyclePrediction PredictCycles(const std::set<LockDependency>& dependencies, const std::map<uint64_t, LockKind>& kinds,
                              size_t max_length, uint64_t chain_budget = 1'000'000);

// Whether a thread asking for `request`'s lock in its mode would wait for a thread that holds it
// as `held` does: exclusive on either side always; shared behind shared only for a
// writer-preferring lock.
bool WouldWait(LockMode request, LockMode held, LockKind kind);

}  // namespace chess::search
