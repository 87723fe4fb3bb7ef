#include "supervisor/fd_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string_view>

namespace chess::supervisor {

std::set<std::pair<uint64_t, uint64_t>> OpenFiles(pid_t pid) {
  std::set<std::pair<uint64_t, uint64_t>> files;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* fds = opendir(dir.c_str());
  if (fds == nullptr) return files;
  while (const dirent* entry = readdir(fds)) {
    struct stat st{};
    if (entry->d_name[0] == '.' || fstatat(dirfd(fds), entry->d_name, &st, 0) != 0) continue;
    // Every anonymous-inode file (epoll, eventfd, signalfd, timerfd, pidfd) is the one inode of
    // anon_inodefs: one held at the start (before exec, by whatever spawned the program) would
    // make every epoll the program creates "a file it started with", never an I/O point.
    char target[32];
    const ssize_t length = readlinkat(dirfd(fds), entry->d_name, target, sizeof(target));
    if (length >= 11 && std::string_view(target, 11) == "anon_inode:") continue;
    files.emplace(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
  }
  closedir(fds);
  return files;
}

std::string FdTarget(pid_t pid, int fd) {
  const std::string link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char target[512];
  const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

FdCopy& FdCopy::operator=(FdCopy&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.Release();
  }
  return *this;
}

FdCopy::FdCopy(const FdCopy& other) : fd_(other.fd_ >= 0 ? fcntl(other.fd_, F_DUPFD_CLOEXEC, 3) : -1) {}

FdCopy& FdCopy::operator=(const FdCopy& other) {
  if (this != &other) *this = FdCopy(other);
  return *this;
}

FdCopy::~FdCopy() {
  if (fd_ >= 0) close(fd_);
}

int FdCopy::Release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

short FdCopy::Poll(short events) const {
  pollfd probe{fd_, events, 0};
  if (poll(&probe, 1, 0) != 1) return 0;
  return probe.revents;
}

int FdCopy::StatusFlags() const { return fcntl(fd_, F_GETFL); }

bool FdCopy::Nonblocking() const {
  const int flags = StatusFlags();
  return flags >= 0 && (flags & O_NONBLOCK) != 0;
}

unsigned FdCopy::FileType() const {
  struct stat st{};
  if (fstat(fd_, &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

std::optional<std::pair<uint64_t, uint64_t>> FdCopy::Identity() const {
  struct stat st{};
  if (fstat(fd_, &st) != 0) return std::nullopt;
  return std::make_pair(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
}

std::optional<uint64_t> FdCopy::DeviceNumber() const {
  struct stat st{};
  if (fstat(fd_, &st) != 0 || (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))) return std::nullopt;
  return st.st_rdev;
}

std::optional<int64_t> FdCopy::SocketTimeout(int option) const {
  timeval timeout{};
  socklen_t length = sizeof(timeout);
  if (getsockopt(fd_, SOL_SOCKET, option, &timeout, &length) != 0) return std::nullopt;
  if (timeout.tv_sec == 0 && timeout.tv_usec == 0) return std::nullopt;
  return static_cast<int64_t>(timeout.tv_sec) * 1'000'000'000 + static_cast<int64_t>(timeout.tv_usec) * 1000;
}

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

FdCopy FdProbe::Copy(pid_t tgid, int fd) {
  if (fd < 0) return FdCopy();
  const int pidfd = PidfdOf(tgid);
  if (pidfd < 0) return FdCopy();
  return FdCopy(static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0)));
}

short FdProbe::Poll(pid_t tgid, int fd, short events) {
  const FdCopy copy = Copy(tgid, fd);
  if (!copy) return POLLNVAL;
  return copy.Poll(events);
}

}  // namespace chess::supervisor
