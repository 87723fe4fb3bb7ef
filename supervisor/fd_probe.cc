#include "supervisor/fd_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace chess::supervisor {

FdProbe::~FdProbe() {
  for (const auto& [tgid, pidfd] : pidfds_) close(pidfd);
}

int FdProbe::PidfdOf(pid_t tgid) {
  auto it = pidfds_.find(tgid);
  if (it != pidfds_.end()) return it->second;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, tgid, 0));
  if (pidfd >= 0) pidfds_[tgid] = pidfd;
  return pidfd;
}

void FdProbe::Forget(pid_t tgid) {
  auto it = pidfds_.find(tgid);
  if (it == pidfds_.end()) return;
  close(it->second);
  pidfds_.erase(it);
}

std::optional<bool> FdProbe::InputReady(pid_t tgid, int fd) {
  const int pidfd = PidfdOf(tgid);
  if (pidfd < 0) return std::nullopt;
  const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0));
  if (copy < 0) return std::nullopt;
  pollfd probe{copy, POLLIN, 0};
  std::optional<bool> ready;
  if (poll(&probe, 1, 0) == 1) {
    ready = true;  // data, EOF (POLLHUP) or an error: the read returns
  } else if ((fcntl(copy, F_GETFL) & O_NONBLOCK) != 0) {
    ready = std::nullopt;  // EAGAIN at once
  } else {
    ready = false;
    struct stat st{};
    timeval timeout{};
    socklen_t length = sizeof(timeout);
    if (fstat(copy, &st) == 0 && S_ISSOCK(st.st_mode) &&
        getsockopt(copy, SOL_SOCKET, SO_RCVTIMEO, &timeout, &length) == 0 &&
        (timeout.tv_sec != 0 || timeout.tv_usec != 0)) {
      ready = std::nullopt;  // the kernel's own timeout applies
    }
  }
  close(copy);
  return ready;
}

}  // namespace chess::supervisor
