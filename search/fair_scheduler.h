// FairScheduler: the priority relation of fair stateless model checking (Musuvathi & Qadeer,
// PLDI'08; research/search-and-peers.md §A.2.2). A thread that yields — declares it cannot make
// progress — gets lower priority than every thread that was continuously enabled, or that it
// disabled, and did not run since its previous yield; the priority goes as soon as those
// threads run. Only threads no enabled thread has priority over may be scheduled, so a
// spin-and-yield loop cannot starve the thread it waits for, while every finite schedule that
// does not rely on such starvation stays reachable.
#pragma once

#include <span>
#include <vector>

#include "search/thread_set.h"

namespace chess::search {

class FairScheduler {
 public:
  // When a thread's E set (threads continuously enabled since its last yield) starts: at its
  // creation with the threads enabled then (eager, fairness one yield sooner), or empty until
  // its first yield (lazy, as Maple's implementation does). Both are fair.
  enum class Init { kEager, kLazy };

  explicit FairScheduler(Init init = Init::kEager) : init_(init) {}

  // The threads of `enabled` that may be scheduled: no enabled thread has priority over them.
  // Never empty when `enabled` is not (the relation has no cycle among enabled threads).
  std::vector<ThreadId> Schedulable(std::span<const ThreadId> enabled) const;
  bool IsSchedulable(ThreadId thread, std::span<const ThreadId> enabled) const;

  // `thread` took a step from a state where `before` were enabled to one where `after` are;
  // `yielded` when that step was a yield (sched_yield, a sleep, a wait that timed out, a
  // backstop interrupt). Both sets in creation order.
  void Stepped(ThreadId thread, std::span<const ThreadId> before, std::span<const ThreadId> after, bool yielded);

  // A hash of the whole priority state (P, E, D and S of every thread): part of a state's
  // identity for state caching, since it decides who may run from here on.
  uint64_t Fingerprint() const;

  // The threads `thread` currently has lower priority than (for reports and tests).
  std::vector<ThreadId> LowerThan(ThreadId thread) const;

 private:
  struct PerThread {
    ThreadSet lower_than;  // (thread, h) ∈ P: thread has lower priority than h
    ThreadSet enabled;     // E: continuously enabled since the thread's last yield
    ThreadSet disabled;    // D: disabled by the thread's steps since its last yield
    ThreadSet scheduled;   // S: scheduled since its last yield
    bool known = false;
  };
  PerThread& Of(ThreadId thread);
  void Meet(std::span<const ThreadId> enabled);

  Init init_;
  std::vector<PerThread> threads_;  // indexed by ThreadId::value
};

}  // namespace chess::search
