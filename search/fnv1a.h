// FNV-1a, 64 bits: a small, stable hash of bytes (trace checksums, syscall digests). Continue a
// hash over more bytes by passing the previous result as `hash`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace chess::search {

inline uint64_t Fnv1a64(const void* data, size_t size, uint64_t hash = 0xcbf29ce484222325ull) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}

}  // namespace chess::search
