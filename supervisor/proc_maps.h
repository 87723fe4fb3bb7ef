// /proc/PID/maps, read in one place: the mappings of a process, each line as the kernel writes it
// ("start-end perms offset major:minor inode   pathname"). The pathname is whatever the rest of
// the line holds — a file (perhaps followed by " (deleted)"), "[vdso]", "[heap]", "[stack]" — or
// empty for anonymous memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chess::supervisor {

struct MapsEntry {
  uint64_t start = 0;
  uint64_t end = 0;
  bool readable = false;
  bool writable = false;
  bool executable = false;
  bool shared = false;  // 's': MAP_SHARED (VM_MAYSHARE), else 'p'
  uint64_t offset = 0;  // of `start` in the file
  uint32_t device_major = 0;
  uint32_t device_minor = 0;
  uint64_t inode = 0;  // 0: anonymous
  std::string path;

  // A file (an absolute path), not anonymous memory or a pseudo-mapping such as "[vdso]".
  bool IsFile() const { return !path.empty() && path.front() == '/'; }
};

// One line, or nullopt when it is not one (a truncated read).
std::optional<MapsEntry> ParseMapsLine(std::string_view line);

// Every mapping of the process `tid` belongs to, in address order; empty when the file cannot be
// read (the process is gone).
std::vector<MapsEntry> ReadMaps(pid_t tid);

}  // namespace chess::supervisor
