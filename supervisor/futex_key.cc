#include "supervisor/futex_key.h"

#include <cinttypes>
#include <cstdio>
#include <string>

namespace chess::supervisor {
namespace {

struct Mapping {
  bool shared = false;
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;  // of `address` within the backing object
};

bool FindMapping(pid_t tid, uint64_t address, Mapping& out) {
  const std::string path = "/proc/" + std::to_string(tid) + "/maps";
  FILE* maps = fopen(path.c_str(), "re");
  if (maps == nullptr) return false;
  char line[512];
  bool found = false;
  while (!found && fgets(line, sizeof(line), maps) != nullptr) {
    uint64_t start = 0, end = 0, offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char perms[8] = {};
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64, &start, &end, perms,
               &offset, &major, &minor, &inode) != 7) {
      continue;
    }
    if (address < start || address >= end) continue;
    found = true;
    out.shared = perms[3] == 's';
    out.device = (static_cast<uint64_t>(major) << 32) | minor;
    out.inode = inode;
    out.offset = offset + (address - start);
  }
  fclose(maps);
  return found;
}

}  // namespace

FutexKey MakeFutexKey(const Thread& thread, uint64_t address, bool shared) {
  const uint64_t space = thread.process->address_space;
  if (!shared) return {FutexKey::Kind::kPrivate, space, 0, address};
  Mapping mapping;
  if (FindMapping(thread.tid, address, mapping) && mapping.shared) {
    return {FutexKey::Kind::kSharedObject, mapping.device, mapping.inode, mapping.offset};
  }
  return {FutexKey::Kind::kSharedPrivateMemory, space, 0, address};
}

}  // namespace chess::supervisor
