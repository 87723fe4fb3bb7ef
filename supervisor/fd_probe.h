// FdProbe: asks whether a tracee's descriptor would make a read return now, without touching
// it. A copy taken with pidfd_getfd shares the open file description, so poll() on the copy
// sees what the tracee would; the copy is closed at once (a held copy of a pipe end would keep
// the pipe alive).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>

namespace chess::supervisor {

class FdProbe {
 public:
  FdProbe() = default;
  FdProbe(const FdProbe&) = delete;
  FdProbe& operator=(const FdProbe&) = delete;
  ~FdProbe();

  // nullopt: the descriptor is not open, or the read would not block anyway (O_NONBLOCK, a
  // socket with a receive timeout): let the kernel answer.
  std::optional<bool> InputReady(pid_t tgid, int fd);
  // The process is gone: drop its pidfd.
  void Forget(pid_t tgid);

 private:
  int PidfdOf(pid_t tgid);
  std::map<pid_t, int> pidfds_;
};

}  // namespace chess::supervisor
