// Mix64: a strong 64-bit finalizer (splitmix64's), for combining the fields of a key into a hash
// whose bits are all well spread — what a commutative sum of hashes needs.
#pragma once

#include <cstdint>

namespace chess::search {

inline uint64_t Mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline uint64_t Mix64(uint64_t a, uint64_t b) { return Mix64(a ^ Mix64(b)); }

}  // namespace chess::search
