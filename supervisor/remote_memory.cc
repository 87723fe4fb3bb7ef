#include "supervisor/remote_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace chess::supervisor {

bool RemoteMemory::Read(uint64_t address, void* buffer, size_t size) const {
  if (size == 0) return true;
  iovec local{buffer, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(tid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

bool RemoteMemory::Write(uint64_t address, const void* buffer, size_t size) const {
  if (size == 0) return true;
  iovec local{const_cast<void*>(buffer), size};
  iovec remote{reinterpret_cast<void*>(address), size};
  if (process_vm_writev(tid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size)) return true;
  // process_vm_writev refuses read-only pages; /proc/PID/mem writes with FOLL_FORCE like ptrace.
  const std::string path = "/proc/" + std::to_string(tid_) + "/mem";
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t written = pwrite(fd, buffer, size, static_cast<off_t>(address));
  close(fd);
  return written == static_cast<ssize_t>(size);
}

std::optional<std::string> RemoteMemory::ReadString(uint64_t address, size_t limit) const {
  std::string result;
  char chunk[256];
  while (result.size() < limit) {
    // Read page-bounded chunks so a string ending just before an unmapped page is still read.
    const uint64_t at = address + result.size();
    const size_t to_page_end = 4096 - (at % 4096);
    const size_t n = std::min({sizeof(chunk), to_page_end, limit - result.size()});
    if (!Read(at, chunk, n)) return result.empty() ? std::nullopt : std::optional(result);
    for (size_t i = 0; i < n; ++i) {
      if (chunk[i] == '\0') return result;
      result.push_back(chunk[i]);
    }
  }
  return result;
}

}  // namespace chess::supervisor
