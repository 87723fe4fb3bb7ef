// TreeLockRequests: what the threads stopped where they ask for a lock that can wait ask for,
// with the locks they hold:
// - a lock the preload shim announced (seccomp/hypercall_abi.h): the announced object, where it
//   is asked for (announcing_site), and the shim's held list (each lock with where it was taken);
// - flock(LOCK_SH/LOCK_EX) between processes: the file (by device and inode), asked for where the
//   call returns to, and the flock locks the process holds (/proc/locks) — each held lock known
//   only to a process that asked for it here.
// Both kinds go into one list, so a cycle may run through mutexes and file locks. For the
// strategies that look at lock requests (search/lock_dependency.h: prediction and directed
// executions); nothing is read unless one asks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/lock_dependency.h"
#include "supervisor/report/symbolizer.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

class TreeLockRequests final : public search::LockRequests {
 public:
  explicit TreeLockRequests(ThreadTable& threads) : threads_(threads) {}

  std::optional<search::LockRequest> PendingOf(search::ThreadId thread) override;
  std::string Name(uint64_t address) override;

 private:
  // Whether the lock at `address` of `thread`'s process lives in a module's static storage.
  bool FixedAddress(const Thread& thread, uint64_t address);
  // Whether the rwlock at `address` prefers writers (glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP).
  static bool PrefersWriters(const Thread& thread, uint64_t address);
  ProcessSymbols& SymbolsOf(const Thread& thread);
  // A thread stopped at flock(fd, LOCK_SH or LOCK_EX): the file it asks for; nullopt otherwise.
  std::optional<search::LockRequest> FileLockRequest(Thread& thread, search::ThreadId id);
  // The flock locks `tgid` holds now (from /proc/locks) that thread `thread` asked for, each with
  // where it asked: a flock belongs to the process, but only the thread that took it holds it in
  // the lock order (a pidfile locked by main must not gate every other thread's cycles).
  std::vector<search::HeldLock> FileLocksHeld(pid_t tgid, uint32_t thread);

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
  // File locks: (tgid, lock) -> the thread that last asked for it and where; the files' names.
  struct FileLockAsked {
    uint32_t thread = 0;
    uint64_t site = 0;
  };
  std::map<std::pair<pid_t, uint64_t>, FileLockAsked> file_lock_sites_;
  std::map<uint64_t, std::string> file_names_;
};

}  // namespace chess::supervisor
