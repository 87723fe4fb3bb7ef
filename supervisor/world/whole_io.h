// Reading and writing a whole buffer through a descriptor, going on after a signal's
// interruption (the supervisor's timer ticks) — unless `stop_on_signal` and chess-trace was asked
// to stop meanwhile, so that a Ctrl-C is not held up by a write to a reader that is gone.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

#include "supervisor/ptrace/event_waiter.h"

namespace chess::supervisor {

inline bool WriteWhole(int fd, const char* data, size_t size, bool stop_on_signal = false) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR && !(stop_on_signal && PendingStopSignal() != 0)) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

inline bool WriteWhole(int fd, const std::string& bytes, bool stop_on_signal = false) {
  return WriteWhole(fd, bytes.data(), bytes.size(), stop_on_signal);
}

inline bool ReadWhole(int fd, char* data, size_t size, bool stop_on_signal = false) {
  while (size > 0) {
    const ssize_t got = read(fd, data, size);
    if (got < 0 && errno == EINTR && !(stop_on_signal && PendingStopSignal() != 0)) continue;
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace chess::supervisor
