#include "supervisor/clock.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace chess::supervisor {
namespace {

// TAI runs ahead of UTC by the leap seconds so far (37 since 2017).
constexpr int64_t kTaiOffset = 37 * kNanosPerSecond;

}  // namespace

MonoNanos Clock::ToMonotonic(clockid_t clock, int64_t absolute) const {
  if (clock == CLOCK_MONOTONIC) return absolute;
  const std::optional<int64_t> now = Read(clock);
  if (!now) return absolute;
  return absolute - *now + Monotonic();
}

std::optional<int64_t> RealClock::Read(clockid_t clock) const {
  timespec ts{};
  // The syscall, not the vDSO: with virtual time chess-trace itself runs with rdtsc trapped
  // (see run_command.cc), and the vDSO reads the time stamp counter.
  if (syscall(SYS_clock_gettime, clock, &ts) != 0) return std::nullopt;
  return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}

std::optional<int64_t> VirtualClock::Read(clockid_t clock) const {
  switch (clock) {
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
      return now_;
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
      return epoch_ + Elapsed();
    case CLOCK_TAI:
      return epoch_ + Elapsed() + kTaiOffset;
    default:
      return std::nullopt;  // CPU-time clocks, and clock ids that do not exist
  }
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
