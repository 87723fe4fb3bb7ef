// ThreadId: a thread's logical identity in one execution — its creation order, never a kernel tid.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace chess::search {

// Thread 0 is the root process's main thread; every thread created afterwards, in any process
// of the tree, takes the next number. Serialized creation makes the numbering deterministic.
struct ThreadId {
  uint32_t value = 0;

  constexpr auto operator<=>(const ThreadId&) const = default;
};

}  // namespace chess::search

template <>
struct std::hash<chess::search::ThreadId> {
  size_t operator()(chess::search::ThreadId id) const noexcept { return id.value; }
};
