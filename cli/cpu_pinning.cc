#include "cli/cpu_pinning.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace chess::cli {

Result<Pinning> PinSupervisor(std::optional<int> requested, bool pin) {
  Pinning pinning;
  if (!pin) return pinning;
  // The raw syscall reports the kernel's mask size, which is what the program will be told.
  uint8_t mask[1024] = {};
  const long size = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
  if (size <= 0) return Error{std::string("sched_getaffinity: ") + std::strerror(errno)};
  pinning.machine_mask.assign(mask, mask + size);
  std::vector<int> allowed;
  for (int cpu = 0; cpu < size * 8; ++cpu) {
    if (mask[cpu / 8] & (1u << (cpu % 8))) allowed.push_back(cpu);
  }
  if (allowed.empty()) return Error{"no CPU is available to this process"};
  int cpu = allowed[static_cast<size_t>(getpid()) % allowed.size()];
  if (requested) {
    if (*requested < 0 || *requested >= size * 8 || !(mask[*requested / 8] & (1u << (*requested % 8)))) {
      std::string list;
      for (int c : allowed) list += (list.empty() ? "" : ",") + std::to_string(c);
      return Error{"--cpu " + std::to_string(*requested) + " is not available; allowed CPUs: " + list};
    }
    cpu = *requested;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return Error{"pinning to CPU " + std::to_string(cpu) + ": " + std::strerror(errno)};
  }
  pinning.cpu = cpu;
  return pinning;
}

}  // namespace chess::cli
