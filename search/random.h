// SeededRandom: the one source of randomness of an execution — the bytes the program gets from
// getrandom and /dev/urandom, its AT_RANDOM, and later the randomized strategies' choices. A
// xoshiro256** generator seeded through splitmix64: fast, and the same seed gives the same
// stream on every machine (no std:: distribution, whose output the standard leaves open).
#pragma once

#include <cstddef>
#include <cstdint>

namespace chess::search {

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& word : state_) word = SplitMix(x);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  void Fill(void* buffer, size_t size) {
    auto* bytes = static_cast<uint8_t*>(buffer);
    while (size > 0) {
      uint64_t word = Next();
      for (int i = 0; i < 8 && size > 0; ++i, --size, word >>= 8) *bytes++ = static_cast<uint8_t>(word);
    }
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  uint64_t state_[4];
};

}  // namespace chess::search
