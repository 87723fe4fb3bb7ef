// ShimLockRequests: what the threads stopped at a lock's announcement ask for, read from the
// preload shim (seccomp/hypercall_abi.h): the lock (the announced object) and where it is asked
// for (announcing_site), with the locks the thread holds and where it took each (its held list).
// For the strategies that look at lock requests (search/lock_dependency.h: prediction and
// directed executions); nothing is read unless one asks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "search/lock_dependency.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class ShimLockRequests final : public search::LockRequests {
 public:
  explicit ShimLockRequests(ThreadTable& threads) : threads_(threads) {}

  std::optional<search::LockRequest> PendingOf(search::ThreadId thread) override;
  std::string Name(uint64_t address) override;

 private:
  // Whether the lock at `address` of `thread`'s process lives in a module's static storage.
  bool FixedAddress(const Thread& thread, uint64_t address);
  // Whether the rwlock at `address` prefers writers (glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP).
  static bool PrefersWriters(const Thread& thread, uint64_t address);
  ProcessSymbols& SymbolsOf(const Thread& thread);

  ThreadTable& threads_;
  Symbolizer symbols_;
  // Addresses seen in requests, with the thread whose process they belong to (for Name).
  struct Seen {
    pid_t tgid = 0;
    pid_t tid = 0;
    bool lock = false;  // a lock, or a site (a return address)
  };
  std::map<uint64_t, Seen> seen_in_;
  std::map<std::pair<pid_t, uint64_t>, bool> fixed_;     // (tgid, lock) -> static storage
};

}  // namespace chess::supervisor
