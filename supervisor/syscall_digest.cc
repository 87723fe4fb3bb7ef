#include "supervisor/syscall_digest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "search/fnv1a.h"
#include "seccomp/syscall_table.h"
#include "supervisor/remote_memory.h"

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

std::string FdTarget(pid_t tid, uint64_t fd) {
  char link[64];
  std::snprintf(link, sizeof(link), "/proc/%d/fd/%d", tid, static_cast<int>(fd));
  char target[512];
  const ssize_t n = readlink(link, target, sizeof(target) - 1);
  if (n <= 0) return "fd " + std::to_string(static_cast<int>(fd));
  return "fd " + std::to_string(static_cast<int>(fd)) + " (" + std::string(target, static_cast<size_t>(n)) + ")";
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
    event.target = FdTarget(thread.tid, thread.call.args[fd]);
  } else if (StatOfDescriptor(thread)) {
    event.target = FdTarget(thread.tid, thread.call.args[0]);
  } else if (const int path = PathArgument(thread.call.nr); path >= 0) {
    event.target = '"';
    event.target += ReadPath(thread.tid, thread.call.args[path]);
    event.target += '"';
  }
  return event;
}

}  // namespace

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
