// Clock: the time the program sees and that its deadlines are measured in. Real for now; the
// determinism work swaps in a virtual clock behind the same interface.
#pragma once

#include <time.h>

#include <cstdint>
#include <optional>

#include "supervisor/remote_memory.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on `clock` (CLOCK_REALTIME, CLOCK_MONOTONIC, …).
  virtual int64_t Now(clockid_t clock) const = 0;

  MonoNanos Monotonic() const { return Now(CLOCK_MONOTONIC); }
  // An absolute time on `clock` expressed as a CLOCK_MONOTONIC deadline.
  MonoNanos ToMonotonic(clockid_t clock, int64_t absolute) const;
};

class RealClock final : public Clock {
 public:
  int64_t Now(clockid_t clock) const override;
};

// Reads a struct timespec from the tracee. nullopt with `*error` = EFAULT or EINVAL when the
// pointer or the value is bad, as the kernel would answer.
std::optional<int64_t> ReadTimespec(const RemoteMemory& memory, uint64_t address, int* error);

}  // namespace chess::supervisor
