// RemoteMemory: reads and writes a stopped tracee's memory. Reads use process_vm_readv (one
// syscall, no per-word ptrace); writes fall back to /proc/PID/mem, which can also write
// read-only mappings the way a debugger does.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace chess::supervisor {

class RemoteMemory {
 public:
  explicit RemoteMemory(pid_t tid) : tid_(tid) {}

  bool Read(uint64_t address, void* buffer, size_t size) const;
  bool Write(uint64_t address, const void* buffer, size_t size) const;

  template <typename T>
  std::optional<T> Read(uint64_t address) const {
    T value;
    if (!Read(address, &value, sizeof(value))) return std::nullopt;
    return value;
  }
  template <typename T>
  bool Write(uint64_t address, const T& value) const {
    return Write(address, &value, sizeof(value));
  }

 private:
  pid_t tid_;
};

}  // namespace chess::supervisor
