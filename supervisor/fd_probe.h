// FdProbe: looks at a tracee's descriptors without touching them. A copy taken with
// pidfd_getfd shares the open file description, so poll() on the copy sees what the tracee
// would; copies are closed as soon as they are done with (a held copy of a pipe's write end
// would keep its reader from ever seeing EOF).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace chess::supervisor {

// A copy of one tracee descriptor; closed when it goes out of scope.
class FdCopy {
 public:
  FdCopy() = default;
  explicit FdCopy(int fd) : fd_(fd) {}
  FdCopy(FdCopy&& other) noexcept : fd_(other.Release()) {}
  FdCopy& operator=(FdCopy&& other) noexcept;
  // A copy holds the same open file again (a descriptor of its own).
  FdCopy(const FdCopy& other);
  FdCopy& operator=(const FdCopy& other);
  ~FdCopy();

  explicit operator bool() const { return fd_ >= 0; }
  int get() const { return fd_; }
  int Release();

  // What poll(…, 0) reports for `events` now (POLLERR, POLLHUP and POLLNVAL included).
  short Poll(short events) const;
  // The file status flags (O_NONBLOCK, O_ACCMODE…), or -1.
  int StatusFlags() const;
  bool Nonblocking() const;
  // S_IFIFO, S_IFSOCK, S_IFREG… (0 when unknown).
  unsigned FileType() const;
  // Which file it is: (st_dev, st_ino), or nothing when fstat fails.
  std::optional<std::pair<uint64_t, uint64_t>> Identity() const;
  // For a device: its number (st_rdev).
  std::optional<uint64_t> DeviceNumber() const;
  // A socket's SO_RCVTIMEO or SO_SNDTIMEO in nanoseconds when one is set.
  std::optional<int64_t> SocketTimeout(int option) const;

 private:
  int fd_ = -1;
};

// The files process `pid` has open, as (st_dev, st_ino), but anonymous-inode ones (epoll,
// eventfd…), which are all one inode.
std::set<std::pair<uint64_t, uint64_t>> OpenFiles(pid_t pid);

// What /proc/PID/fd/FD links to ("pipe:[1234]", "socket:[5678]", a path), or "".
std::string FdTarget(pid_t pid, int fd);

class FdProbe {
 public:
  FdProbe() = default;
  FdProbe(const FdProbe&) = delete;
  FdProbe& operator=(const FdProbe&) = delete;
  ~FdProbe();

  // A copy of descriptor `fd` of process `tgid`; empty when it is not open.
  FdCopy Copy(pid_t tgid, int fd);
  // What poll(…, 0) on the tracee's descriptor reports for `events`; POLLNVAL when it is not
  // open (the kernel would then fail the call at once, so the caller is never kept waiting).
  short Poll(pid_t tgid, int fd, short events);
  // The process is gone: drop its pidfd.
  void Forget(pid_t tgid);

 private:
  int PidfdOf(pid_t tgid);
  std::map<pid_t, int> pidfds_;
};

}  // namespace chess::supervisor
