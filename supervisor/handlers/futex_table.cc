#include "supervisor/handlers/futex_table.h"

#include <algorithm>

namespace chess::supervisor {

void FutexTable::Enqueue(const FutexKey& key, const FutexWaiter& waiter) {
  queues_[key].push_back(waiter);
  keys_of_[waiter.tid].push_back(key);
}

std::vector<FutexWaiter> FutexTable::Wake(const FutexKey& key, int64_t count, uint32_t bitset) {
  std::vector<FutexWaiter> woken;
  auto it = queues_.find(key);
  if (it == queues_.end() || count <= 0) return woken;
  auto& queue = it->second;
  for (auto w = queue.begin(); w != queue.end() && static_cast<int64_t>(woken.size()) < count;) {
    if ((w->bitset & bitset) == 0) {
      ++w;
      continue;
    }
    woken.push_back(*w);
    w = queue.erase(w);
  }
  if (queue.empty()) queues_.erase(it);
  // A futex_waitv waiter sits on several queues; one wake releases it from all of them.
  for (const FutexWaiter& waiter : woken) Remove(waiter.tid);
  return woken;
}

std::vector<FutexWaiter> FutexTable::Requeue(const FutexKey& from, const FutexKey& to,
                                             int64_t count, bool make_pi) {
  std::vector<FutexWaiter> moved;
  auto it = queues_.find(from);
  if (it == queues_.end() || count <= 0 || from == to) return moved;
  auto& queue = it->second;
  while (!queue.empty() && static_cast<int64_t>(moved.size()) < count) {
    FutexWaiter waiter = queue.front();
    queue.pop_front();
    Unlink(waiter.tid, from);
    if (make_pi) waiter.pi = true;
    moved.push_back(waiter);
  }
  if (queue.empty()) queues_.erase(it);
  for (const FutexWaiter& waiter : moved) Enqueue(to, waiter);
  return moved;
}

std::optional<FutexWaiter> FutexTable::Front(const FutexKey& key) const {
  auto it = queues_.find(key);
  if (it == queues_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

size_t FutexTable::Waiters(const FutexKey& key) const {
  auto it = queues_.find(key);
  return it == queues_.end() ? 0 : it->second.size();
}

void FutexTable::Remove(pid_t tid) {
  auto keys = keys_of_.find(tid);
  if (keys == keys_of_.end()) return;
  for (const FutexKey& key : keys->second) {
    auto it = queues_.find(key);
    if (it == queues_.end()) continue;
    std::erase_if(it->second, [tid](const FutexWaiter& w) { return w.tid == tid; });
    if (it->second.empty()) queues_.erase(it);
  }
  keys_of_.erase(keys);
}

std::optional<FutexKey> FutexTable::KeyOf(pid_t tid) const {
  auto it = keys_of_.find(tid);
  if (it == keys_of_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

void FutexTable::Unlink(pid_t tid, const FutexKey& key) {
  auto it = keys_of_.find(tid);
  if (it == keys_of_.end()) return;
  auto& keys = it->second;
  if (auto k = std::find(keys.begin(), keys.end(), key); k != keys.end()) keys.erase(k);
  if (keys.empty()) keys_of_.erase(it);
}

}  // namespace chess::supervisor
