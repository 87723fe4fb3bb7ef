#include "supervisor/ptrace/remote_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

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

}  // namespace chess::supervisor
