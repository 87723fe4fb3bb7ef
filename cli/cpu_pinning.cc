#include "cli/cpu_pinning.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace chess::cli {

std::vector<uint8_t> OwnAffinityMask() {
  // The raw syscall reports the kernel's mask size, which is what the program will be told.
  std::vector<uint8_t> mask(1024, 0);
  const long size = syscall(SYS_sched_getaffinity, 0, mask.size(), mask.data());
  mask.resize(size > 0 ? static_cast<size_t>(size) : 0);
  return mask;
}

std::vector<int> CpusOf(const std::vector<uint8_t>& mask) {
  std::vector<int> cpus;
  for (size_t cpu = 0; cpu < mask.size() * 8; ++cpu) {
    if (mask[cpu / 8] & (1u << (cpu % 8))) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

Result<Pinning> PinSupervisor(std::optional<int> requested, bool pin) {
  Pinning pinning;
  if (!pin) return pinning;
  pinning.machine_mask = OwnAffinityMask();
  if (pinning.machine_mask.empty()) return Error{std::string("sched_getaffinity: ") + std::strerror(errno)};
  const std::vector<int> allowed = CpusOf(pinning.machine_mask);
  if (allowed.empty()) return Error{"no CPU is available to this process"};
  int cpu = allowed[static_cast<size_t>(getpid()) % allowed.size()];
  if (requested) {
    if (std::find(allowed.begin(), allowed.end(), *requested) == allowed.end()) {
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
