// ThreadSet: a set of logical thread ids as a bitset. Ids are creation order, so they are dense
// and a bitset indexed by them stays small; it grows as threads are created.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "search/thread_id.h"

namespace chess::search {

class ThreadSet {
 public:
  ThreadSet() = default;
  explicit ThreadSet(std::span<const ThreadId> ids) {
    for (ThreadId id : ids) Insert(id);
  }

  bool Contains(ThreadId id) const {
    const size_t word = id.value / 64;
    return word < words_.size() && (words_[word] >> (id.value % 64) & 1) != 0;
  }
  void Insert(ThreadId id) {
    const size_t word = id.value / 64;
    if (word >= words_.size()) words_.resize(word + 1, 0);
    words_[word] |= uint64_t{1} << (id.value % 64);
  }
  void Erase(ThreadId id) {
    const size_t word = id.value / 64;
    if (word < words_.size()) words_[word] &= ~(uint64_t{1} << (id.value % 64));
  }
  void Clear() { words_.clear(); }
  bool Empty() const {
    for (uint64_t word : words_) {
      if (word != 0) return false;
    }
    return true;
  }
  // this ∩= other
  void IntersectWith(const ThreadSet& other) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] &= i < other.words_.size() ? other.words_[i] : 0;
  }
  // this ∪= other
  void UnionWith(const ThreadSet& other) {
    if (other.words_.size() > words_.size()) words_.resize(other.words_.size(), 0);
    for (size_t i = 0; i < other.words_.size(); ++i) words_[i] |= other.words_[i];
  }
  // this \= other
  void Subtract(const ThreadSet& other) {
    for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i) words_[i] &= ~other.words_[i];
  }
  bool Intersects(const ThreadSet& other) const {
    for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i) {
      if ((words_[i] & other.words_[i]) != 0) return true;
    }
    return false;
  }
  // The members, in creation order.
  std::vector<ThreadId> Members() const {
    std::vector<ThreadId> ids;
    for (size_t i = 0; i < words_.size(); ++i) {
      for (uint64_t word = words_[i]; word != 0; word &= word - 1) {
        ids.push_back(ThreadId{static_cast<uint32_t>(i * 64 + std::countr_zero(word))});
      }
    }
    return ids;
  }

  // A hash of the members: equal sets hash equally, however their storage grew.
  uint64_t Fingerprint() const {
    size_t used = words_.size();
    while (used > 0 && words_[used - 1] == 0) --used;
    uint64_t hash = 0x6a09e667f3bcc908ull;
    for (size_t i = 0; i < used; ++i) hash = (hash ^ words_[i]) * 0x100000001b3ull + (hash >> 29);
    return hash;
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace chess::search
