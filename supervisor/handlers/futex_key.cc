#include "supervisor/handlers/futex_key.h"
#include "supervisor/proc_maps.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace chess::supervisor {
namespace {

struct Mapping {
  bool shared = false;
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;  // of `address` within the backing object
};

// /proc/TID/maps read whole: what kernels before 6.11 offer.
bool ParseMapping(pid_t tid, uint64_t address, Mapping& out) {
  for (const MapsEntry& mapping : ReadMaps(tid)) {
    if (address < mapping.start || address >= mapping.end) continue;
    out.shared = mapping.shared;
    out.device = (static_cast<uint64_t>(mapping.device_major) << 32) | mapping.device_minor;
    out.inode = mapping.inode;
    out.offset = mapping.offset + (address - mapping.start);
    return true;
  }
  return false;
}


// The PROCMAP_QUERY ioctl on /proc/TID/maps (Linux 6.11, uapi/linux/fs.h; not in older headers,
// hence spelled out here): the one mapping that covers an address, without the kernel writing
// out and chess-trace parsing every line of the maps. A shared futex is looked up at every
// pthread_join and thread exit.
struct ProcmapQuery {
  uint64_t size;
  uint64_t query_flags;
  uint64_t query_addr;
  uint64_t vma_start;
  uint64_t vma_end;
  uint64_t vma_flags;
  uint64_t vma_page_size;
  uint64_t vma_offset;
  uint64_t inode;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint32_t vma_name_size;
  uint32_t build_id_size;
  uint64_t vma_name_addr;
  uint64_t build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104);
constexpr unsigned long kProcmapQuery = _IOWR('f', 17, ProcmapQuery);
constexpr uint64_t kProcmapShared = 0x08;  // PROCMAP_QUERY_VMA_SHARED: VM_MAYSHARE, maps' 's'

enum class Query { kFound, kNone, kUnsupported };

Query QueryMapping(pid_t tid, uint64_t address, Mapping& out) {
  const std::string path = "/proc/" + std::to_string(tid) + "/maps";
  const int maps = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (maps < 0) return Query::kNone;
  ProcmapQuery query{};
  query.size = sizeof(query);
  query.query_addr = address;
  const int rc = ioctl(maps, kProcmapQuery, &query);
  const int error = errno;
  close(maps);
  if (rc != 0) return error == ENOTTY || error == EINVAL ? Query::kUnsupported : Query::kNone;
  out.shared = (query.vma_flags & kProcmapShared) != 0;
  out.device = (static_cast<uint64_t>(query.dev_major) << 32) | query.dev_minor;
  out.inode = query.inode;
  out.offset = query.vma_offset + (address - query.vma_start);
  return Query::kFound;
}

bool FindMapping(pid_t tid, uint64_t address, Mapping& out) {
  static bool query_supported = true;  // until the kernel says otherwise
  if (query_supported) {
    switch (QueryMapping(tid, address, out)) {
      case Query::kFound:
        return true;
      case Query::kNone:
        return false;
      case Query::kUnsupported:
        query_supported = false;
        break;
    }
  }
  return ParseMapping(tid, address, out);
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
