// Pinning: the supervisor and the whole tree share one CPU (ptrace round trips are several
// times cheaper there), while the program still sees the machine's CPU mask.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "search/result.h"

namespace chess::cli {

struct Pinning {
  std::optional<int> cpu;             // the CPU everything runs on; empty with --no-pin
  std::vector<uint8_t> machine_mask;  // what sched_getaffinity reported before pinning
};

// The calling process's CPU mask as the kernel reports it (its size is the kernel's); empty when
// it cannot be read.
std::vector<uint8_t> OwnAffinityMask();
// The CPUs set in a mask of that form (CPU 0 in bit 0 of byte 0), in order.
std::vector<int> CpusOf(const std::vector<uint8_t>& mask);

// Pins the calling process. `requested` is --cpu; without it a CPU is chosen among the allowed
// ones (spread by pid, so parallel runs do not pile onto one CPU).
Result<Pinning> PinSupervisor(std::optional<int> requested, bool pin);

}  // namespace chess::cli
