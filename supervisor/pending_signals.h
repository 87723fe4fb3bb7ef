// Reads which signals a thread has pending and blocked, from /proc/TID/status.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace chess::supervisor {

struct SignalMasks {
  uint64_t thread_pending = 0;   // SigPnd: sent to this thread
  uint64_t process_pending = 0;  // ShdPnd: sent to its process, any thread may take it
  uint64_t blocked = 0;          // SigBlk

  uint64_t DeliverableToThread() const { return thread_pending & ~blocked; }
  uint64_t DeliverableFromProcess() const { return process_pending & ~blocked; }
};

std::optional<SignalMasks> ReadSignalMasks(pid_t tid);

}  // namespace chess::supervisor
