// FutexTable: the wait queues of the emulated futexes. The real futex syscall never blocks
// under chess-trace, so these queues are the only record of who waits where. Pure bookkeeping;
// the semantics of each operation live in futex_handler.cc.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace chess::supervisor {

// How the kernel tells futexes apart: a private futex by (address space, address); a shared
// one by the backing object — (address space, address) for private memory, (device, inode,
// offset) for shared mappings. A private and a shared wait on one address never meet.
struct FutexKey {
  enum class Kind : uint8_t { kPrivate, kSharedPrivateMemory, kSharedObject };
  Kind kind = Kind::kPrivate;
  uint64_t space = 0;   // address space, or device for kSharedObject
  uint64_t object = 0;  // 0, or inode for kSharedObject
  uint64_t offset = 0;  // address, or offset in the object

  auto operator<=>(const FutexKey&) const = default;
};

struct FutexWaiter {
  pid_t tid = 0;
  uint32_t bitset = ~0u;
  uint32_t index = 0;   // position in a futex_waitv vector: the value its wait returns
  bool pi = false;      // waits for a PI lock to be handed over
  std::optional<FutexKey> requeue_pi_target;  // FUTEX_WAIT_REQUEUE_PI's second futex
  uint64_t requeue_pi_address = 0;
};

class FutexTable {
 public:
  void Enqueue(const FutexKey& key, const FutexWaiter& waiter);

  // Removes up to `count` waiters whose bitset intersects `bitset`, oldest first.
  std::vector<FutexWaiter> Wake(const FutexKey& key, int64_t count, uint32_t bitset = ~0u);
  // Moves up to `count` waiters (after the woken ones) from one queue to another; returns them.
  std::vector<FutexWaiter> Requeue(const FutexKey& from, const FutexKey& to, int64_t count,
                                   bool make_pi = false);

  std::optional<FutexWaiter> Front(const FutexKey& key) const;
  size_t Waiters(const FutexKey& key) const;

  // Drops every queue entry of a thread (woken through another key of a waitv, timed out, dead).
  void Remove(pid_t tid);
  bool Empty() const { return queues_.empty(); }
  bool IsWaiting(pid_t tid) const { return keys_of_.count(tid) != 0; }
  // The key a thread waits on (its first one, for reports).
  std::optional<FutexKey> KeyOf(pid_t tid) const;

 private:
  void Unlink(pid_t tid, const FutexKey& key);

  std::map<FutexKey, std::deque<FutexWaiter>> queues_;
  std::map<pid_t, std::vector<FutexKey>> keys_of_;
};

}  // namespace chess::supervisor
