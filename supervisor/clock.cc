#include "supervisor/clock.h"

#include <cerrno>

namespace chess::supervisor {

MonoNanos Clock::ToMonotonic(clockid_t clock, int64_t absolute) const {
  if (clock == CLOCK_MONOTONIC) return absolute;
  return absolute - Now(clock) + Monotonic();
}

int64_t RealClock::Now(clockid_t clock) const {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}

std::optional<int64_t> ReadTimespec(const RemoteMemory& memory, uint64_t address, int* error) {
  auto ts = memory.Read<timespec>(address);
  if (!ts) {
    *error = EFAULT;
    return std::nullopt;
  }
  if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= kNanosPerSecond) {
    *error = EINVAL;
    return std::nullopt;
  }
  return static_cast<int64_t>(ts->tv_sec) * kNanosPerSecond + ts->tv_nsec;
}

}  // namespace chess::supervisor
