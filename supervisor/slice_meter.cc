#include "supervisor/slice_meter.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/clock.h"

namespace chess::supervisor {

std::optional<int64_t> ProcessCpuNanos(pid_t tgid) {
  // Linux names a process's CPU clock ~pid << 3 | CPUCLOCK_SCHED.
  const auto clock = static_cast<clockid_t>((~static_cast<unsigned>(tgid) << 3) | 2);
  timespec ts{};
  if (syscall(SYS_clock_gettime, clock, &ts) != 0) return std::nullopt;
  return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}

}  // namespace chess::supervisor
