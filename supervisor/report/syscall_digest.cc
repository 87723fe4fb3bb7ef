#include "supervisor/report/syscall_digest.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "search/fnv1a.h"
#include "seccomp/syscall_table.h"
#include "supervisor/fd_probe.h"
#include "supervisor/ptrace/remote_memory.h"

namespace chess::supervisor {
namespace {

constexpr size_t kMaxDigested = 64 * 1024;  // bytes of a buffer looked at
constexpr size_t kSampleLength = 200;       // bytes of it shown to a person
constexpr size_t kPageSize = 4096;

// Up to `size` bytes at `address`, fewer if the memory ends.
std::string ReadBytes(pid_t tid, uint64_t address, size_t size) {
  std::string bytes(std::min(size, kMaxDigested), '\0');
  RemoteMemory memory(tid);
  if (bytes.empty() || memory.Read(address, bytes.data(), bytes.size())) return bytes;
  // Part of it may be unmapped: what lies before the next page boundary.
  const size_t first = kPageSize - address % kPageSize;
  if (first < bytes.size() && memory.Read(address, bytes.data(), first)) return bytes.substr(0, first);
  return {};
}

// A NUL-terminated string of the program's, up to 4 KiB.
std::string ReadPath(pid_t tid, uint64_t address) {
  if (address == 0) return {};
  std::string text = ReadBytes(tid, address, std::min<uint64_t>(kPageSize, kPageSize - address % kPageSize + 256));
  const size_t end = text.find('\0');
  return end == std::string::npos ? text : text.substr(0, end);
}

// Printable, shortened: what a report quotes.
std::string Sample(const std::string& bytes) {
  std::string text = "\"";
  for (size_t i = 0; i < std::min(bytes.size(), kSampleLength); ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == '\n') {
      text += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      text += "\\x";
      text += kHex[c >> 4];
      text += kHex[c & 15];
    } else {
      text.push_back(static_cast<char>(c));
    }
  }
  text += bytes.size() > kSampleLength ? "…\"" : "\"";
  if (bytes.size() > kSampleLength) text += " (" + std::to_string(bytes.size()) + " bytes)";
  return text;
}

// The argument that names a path, for the calls whose path decides what they do.
int PathArgument(int64_t nr) {
  switch (nr) {
    case SYS_open: case SYS_stat: case SYS_lstat: case SYS_access: case SYS_execve: case SYS_chdir:
    case SYS_mkdir: case SYS_rmdir: case SYS_unlink: case SYS_rename: case SYS_readlink: case SYS_truncate:
    case SYS_creat: case SYS_chmod: case SYS_statfs:
      return 0;
    case SYS_openat: case SYS_newfstatat: case SYS_statx: case SYS_faccessat: case SYS_faccessat2:
    case SYS_execveat: case SYS_mkdirat: case SYS_unlinkat: case SYS_renameat: case SYS_renameat2:
    case SYS_readlinkat: case SYS_openat2: case SYS_fchmodat: case SYS_mknodat:
      return 1;
    default:
      return -1;
  }
}

// The buffer the kernel fills, and how much of it: the result (a byte count), or a fixed size.
struct Output {
  int arg = -1;
  size_t fixed = 0;  // 0: the result is the size
};

Output OutputOf(int64_t nr) {
  switch (nr) {
    case SYS_read: case SYS_pread64: case SYS_recvfrom: case SYS_getdents64: case SYS_getcwd:
      return {nr == SYS_getcwd ? 0 : 1};
    case SYS_readlink: return {1};
    case SYS_readlinkat: return {2};
    case SYS_fstat: case SYS_stat: case SYS_lstat: return {1, sizeof(struct stat)};
    case SYS_newfstatat: return {2, sizeof(struct stat)};
    case SYS_statx: return {4, 256};
    case SYS_uname: return {0, sizeof(struct utsname)};
    default: return {};
  }
}

// The descriptor argument of the calls whose data a report quotes.
int FdArgument(int64_t nr) {
  switch (nr) {
    case SYS_read: case SYS_pread64: case SYS_recvfrom: case SYS_getdents64: case SYS_fstat:
    case SYS_write: case SYS_pwrite64: case SYS_sendto:
      return 0;
    default:
      return -1;
  }
}

// newfstatat(fd, "", …, AT_EMPTY_PATH) is how glibc's fstat asks.
bool StatOfDescriptor(const Thread& thread) {
  return thread.call.nr == SYS_newfstatat && (thread.call.args[3] & AT_EMPTY_PATH) != 0;
}

// "fd 3 (pipe:[1234])", or "fd 3" when it is not open.
std::string DescribeFd(pid_t tid, uint64_t fd) {
  const std::string target = FdTarget(tid, static_cast<int>(fd));
  const std::string name = "fd " + std::to_string(static_cast<int>(fd));
  return target.empty() ? name : name + " (" + target + ")";
}

// A struct stat as a person reads it.
std::string DescribeStat(const std::string& bytes) {
  struct stat st{};
  if (bytes.size() < sizeof(st)) return Sample(bytes);
  std::memcpy(&st, bytes.data(), sizeof(st));
  char text[192];
  std::snprintf(text, sizeof(text), "{dev %llu, inode %llu, mode 0%o, size %lld, mtime %lld.%09ld}",
                static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino), st.st_mode,
                static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec);
  return text;
}

bool IsScalar(seccomp::ArgKind kind) {
  using A = seccomp::ArgKind;
  return kind == A::kInt || kind == A::kFd || kind == A::kFlags || kind == A::kPid || kind == A::kFutexOp;
}

search::SyscallEvent Base(const Thread& thread) {
  search::SyscallEvent event;
  event.thread = thread.id;
  event.index = thread.syscalls;
  event.syscall = thread.call.nr;
  event.ip = thread.regs.Ip();
  if (const int fd = FdArgument(thread.call.nr); fd >= 0) {
    event.target = DescribeFd(thread.tid, thread.call.args[fd]);
  } else if (StatOfDescriptor(thread)) {
    event.target = DescribeFd(thread.tid, thread.call.args[0]);
  } else if (const int path = PathArgument(thread.call.nr); path >= 0) {
    event.target = '"';
    event.target += ReadPath(thread.tid, thread.call.args[path]);
    event.target += '"';
  }
  return event;
}

// A name a call touches: the argument holding it, and the directory descriptor it is relative
// to (-1: the working directory).
struct NamedBy {
  int dirfd_arg = -1;
  int path_arg = -1;
};

std::vector<NamedBy> NamesOf(int64_t nr) {
  switch (nr) {
    case SYS_open: case SYS_mkdir: case SYS_rmdir: case SYS_unlink: case SYS_mknod:
      return {{-1, 0}};
    case SYS_openat: case SYS_mkdirat: case SYS_unlinkat: case SYS_mknodat:
      return {{0, 1}};
    case SYS_rename: case SYS_link:
      return {{-1, 0}, {-1, 1}};
    case SYS_renameat: case SYS_renameat2: case SYS_linkat:
      return {{0, 1}, {2, 3}};
    case SYS_symlink:  // the first argument is the link's text, not a name it touches
      return {{-1, 1}};
    case SYS_symlinkat:
      return {{1, 2}};
    default:
      return {};
  }
}

// The path of a Unix socket address a bind or connect names ("" for another family, or an
// abstract name, which no file holds).
std::string SocketPath(pid_t tid, uint64_t address, uint64_t length) {
  sockaddr_un socket_address{};
  const size_t size = std::min<uint64_t>(length, sizeof(socket_address));
  if (address == 0 || size <= sizeof(sa_family_t) || !RemoteMemory(tid).Read(address, &socket_address, size)) return {};
  if (socket_address.sun_family != AF_UNIX || socket_address.sun_path[0] == '\0') return {};
  const size_t room = size - offsetof(sockaddr_un, sun_path);
  return std::string(socket_address.sun_path, strnlen(socket_address.sun_path, room));
}

std::string Link(const std::string& path) {
  char target[4096];
  const ssize_t n = readlink(path.c_str(), target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

// What is at a name now, in words and as a digest, without following a final symbolic link.
void LookUp(const std::string& through, search::SyscallEvent& found) {
  struct stat st{};
  found.result = fstatat(AT_FDCWD, through.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
  const uint64_t type = found.result == 0 ? static_cast<uint64_t>(st.st_mode & S_IFMT) : 0;
  const uint64_t size = type == S_IFREG ? static_cast<uint64_t>(st.st_size) : 0;
  uint64_t digest = search::Fnv1a64(&found.result, sizeof(found.result));
  digest = search::Fnv1a64(&type, sizeof(type), digest);
  found.digest = search::Fnv1a64(&size, sizeof(size), digest);
  if (found.result == -ENOENT) {
    found.sample = "nothing";
  } else if (found.result != 0) {
    found.sample = std::string("a name that cannot be looked up (") + std::strerror(static_cast<int>(-found.result)) + ")";
  } else if (type == S_IFREG) {
    found.sample = "a regular file of " + std::to_string(size) + (size == 1 ? " byte" : " bytes");
  } else {
    found.sample = type == S_IFDIR ? "a directory" : type == S_IFLNK ? "a symbolic link" : type == S_IFSOCK ? "a socket"
                   : type == S_IFIFO ? "a FIFO" : "a device";
  }
}

}  // namespace

std::vector<int> PathArguments(int64_t nr) {
  std::vector<int> arguments;
  for (const NamedBy& by : NamesOf(nr)) arguments.push_back(by.path_arg);
  if (arguments.empty() && PathArgument(nr) >= 0) arguments.push_back(PathArgument(nr));
  return arguments;
}

std::string ReadProgramString(pid_t tid, uint64_t address) { return ReadPath(tid, address); }

std::vector<search::SyscallEvent> NameEvents(const Thread& thread) {
  const int64_t nr = thread.call.nr;
  const std::string proc = "/proc/" + std::to_string(thread.tid);
  // Each name: as written, the directory it is relative to (through /proc, which leads into
  // the tree's mount namespace) and that directory's path as the program sees it.
  struct Name {
    std::string written;
    std::string through;
    std::string absolute;
  };
  std::vector<Name> names;
  auto add = [&](const std::string& written, int dirfd) {
    if (written.empty()) return;
    const std::string base = dirfd == AT_FDCWD ? proc + "/cwd" : proc + "/fd/" + std::to_string(dirfd);
    Name name{written, written[0] == '/' ? proc + "/root" + written : base + "/" + written, written};
    if (written[0] != '/') name.absolute = Link(base) + "/" + written;
    name.absolute = std::filesystem::path(name.absolute).lexically_normal().string();
    if (name.absolute.size() > 1 && name.absolute.back() == '/') name.absolute.pop_back();
    names.push_back(std::move(name));
  };
  if (nr == SYS_bind || nr == SYS_connect) {
    add(SocketPath(thread.tid, thread.call.args[1], thread.call.args[2]), AT_FDCWD);
  } else {
    for (const NamedBy& by : NamesOf(nr)) {
      const int dirfd = by.dirfd_arg < 0 ? AT_FDCWD : static_cast<int>(thread.call.args[by.dirfd_arg]);
      add(ReadPath(thread.tid, thread.call.args[by.path_arg]), dirfd);
    }
  }
  std::vector<search::SyscallEvent> events;
  for (const Name& name : names) {
    search::SyscallEvent entry = EntryEvent(thread);
    entry.digest = search::Fnv1a64(name.written.data(), name.written.size(), entry.digest);
    entry.sample = Sample(name.written);
    entry.target = name.absolute;
    search::SyscallEvent found = Base(thread);
    found.exit = true;
    found.target = name.absolute;
    LookUp(name.through, found);
    events.push_back(std::move(entry));
    events.push_back(std::move(found));
  }
  return events;
}

search::SyscallEvent EntryEvent(const Thread& thread) {
  search::SyscallEvent event = Base(thread);
  const int64_t nr = thread.call.nr;
  uint64_t digest = search::Fnv1a64(&nr, sizeof(nr));
  // Scalar arguments of the calls the table knows (the registers of unused arguments hold
  // whatever was left there, and pointers say nothing by themselves).
  if (const seccomp::SyscallRow* row = seccomp::FindSyscall(nr)) {
    for (int i = 0; i < 6; ++i) {
      if (IsScalar(row->args[i])) digest = search::Fnv1a64(&thread.call.args[i], sizeof(uint64_t), digest);
    }
  }
  std::string content;
  if (nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_sendto) {
    content = ReadBytes(thread.tid, thread.call.args[1], thread.call.args[2]);
  } else if (const int path = PathArgument(nr); path >= 0) {
    content = ReadPath(thread.tid, thread.call.args[path]);
    if (nr == SYS_renameat2 || nr == SYS_renameat) content += " -> " + ReadPath(thread.tid, thread.call.args[3]);
    if (nr == SYS_rename) content += " -> " + ReadPath(thread.tid, thread.call.args[1]);
  }
  if (!content.empty()) {
    digest = search::Fnv1a64(content.data(), content.size(), digest);
    event.sample = Sample(content);
  }
  event.digest = digest;
  return event;
}

search::SyscallEvent ExitEvent(const Thread& thread) {
  search::SyscallEvent event = Base(thread);
  event.exit = true;
  event.result = thread.regs.Return();
  const Output output = OutputOf(thread.call.nr);
  uint64_t digest = search::Fnv1a64(&event.result, sizeof(event.result));
  if (output.arg >= 0 && event.result >= 0) {
    const size_t size = output.fixed != 0 ? output.fixed : static_cast<size_t>(event.result);
    const std::string bytes = ReadBytes(thread.tid, thread.call.args[output.arg], size);
    digest = search::Fnv1a64(bytes.data(), bytes.size(), digest);
    event.sample = output.fixed == sizeof(struct stat) ? DescribeStat(bytes) : Sample(bytes);
  }
  event.digest = digest;
  return event;
}

}  // namespace chess::supervisor
