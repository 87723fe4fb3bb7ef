#include "supervisor/report/fd_owners.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <optional>

namespace chess::supervisor {
namespace {

// TCP_LISTEN in the kernel's socket states.
constexpr uint8_t kListening = 10;

std::string ProcPath(pid_t pid, const char* what, int fd) {
  return "/proc/" + std::to_string(pid) + "/" + what + "/" + std::to_string(fd);
}

// The access mode of a descriptor (O_RDONLY, O_WRONLY, O_RDWR) from /proc/PID/fdinfo.
std::optional<int> AccessMode(pid_t pid, int fd) {
  FILE* info = std::fopen(ProcPath(pid, "fdinfo", fd).c_str(), "re");
  if (info == nullptr) return std::nullopt;
  std::optional<int> mode;
  char line[256];
  while (std::fgets(line, sizeof(line), info) != nullptr) {
    unsigned flags = 0;
    if (std::sscanf(line, "flags: %o", &flags) == 1) {
      mode = static_cast<int>(flags & O_ACCMODE);
      break;
    }
  }
  std::fclose(info);
  return mode;
}

// "socket:[5678]" → 5678.
std::optional<uint32_t> InodeOf(const std::string& target, const char* kind) {
  const std::string prefix = std::string(kind) + ":[";
  if (target.rfind(prefix, 0) != 0 || target.back() != ']') return std::nullopt;
  return static_cast<uint32_t>(std::stoul(target.substr(prefix.size(), target.size() - prefix.size() - 1)));
}

struct UnixSocket {
  uint8_t type = 0;
  uint8_t state = 0;
  uint32_t peer = 0;  // 0: not connected
  std::string name;   // the bound path; abstract names start with '\0'; "" when unbound
};

// A Unix socket's type, state and peer, from the kernel's socket diagnostics.
std::optional<UnixSocket> DescribeUnixSocket(uint32_t inode) {
  const int sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (sock < 0) return std::nullopt;
  struct {
    nlmsghdr header;
    unix_diag_req request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.request.sdiag_family = AF_UNIX;
  message.request.udiag_states = ~0u;
  message.request.udiag_ino = inode;
  message.request.udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_NAME;
  message.request.udiag_cookie[0] = message.request.udiag_cookie[1] = ~0u;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::optional<UnixSocket> found;
  alignas(nlmsghdr) char reply[8192];
  if (sendto(sock, &message, sizeof(message), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) ==
      sizeof(message)) {
    const ssize_t length = recv(sock, reply, sizeof(reply), 0);
    auto* header = reinterpret_cast<nlmsghdr*>(reply);
    if (length > 0 && NLMSG_OK(header, static_cast<unsigned>(length)) && header->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      const auto* diag = static_cast<const unix_diag_msg*>(NLMSG_DATA(header));
      UnixSocket socket_info{diag->udiag_type, diag->udiag_state, 0, {}};
      int remaining = static_cast<int>(header->nlmsg_len - NLMSG_LENGTH(sizeof(*diag)));
      auto* attribute = reinterpret_cast<nlattr*>(const_cast<unix_diag_msg*>(diag) + 1);
      while (remaining >= static_cast<int>(sizeof(nlattr)) && attribute->nla_len >= sizeof(nlattr) &&
             attribute->nla_len <= remaining) {
        const char* payload = reinterpret_cast<char*>(attribute) + NLA_HDRLEN;
        if ((attribute->nla_type & NLA_TYPE_MASK) == UNIX_DIAG_PEER) {
          std::memcpy(&socket_info.peer, payload, sizeof(uint32_t));
        } else if ((attribute->nla_type & NLA_TYPE_MASK) == UNIX_DIAG_NAME) {
          socket_info.name.assign(payload, attribute->nla_len - NLA_HDRLEN);
          if (!socket_info.name.empty() && socket_info.name[0] != '\0') socket_info.name = socket_info.name.c_str();
        }
        const int step = NLA_ALIGN(attribute->nla_len);
        remaining -= step;
        attribute = reinterpret_cast<nlattr*>(reinterpret_cast<char*>(attribute) + step);
      }
      found = socket_info;
    }
  }
  close(sock);
  return found;
}

constexpr const char* kEventFd = "anon_inode:[eventfd]";

// Whether a Unix socket's name is out of the outside world's reach.
bool PrivateName(const std::string& name, const TreeScope& scope) {
  if (name.empty()) return false;
  if (name[0] == '\0') return scope.private_net;
  return scope.private_tmp && name.rfind("/tmp/", 0) == 0;
}

// "/tmp/harness.sock", or "@name" for an abstract one.
std::string Printable(const std::string& name) {
  return name[0] == '\0' ? "@" + name.substr(1) : name;
}

// "eventfd:7" from "eventfd-id: 7" in /proc/PID/fdinfo/FD, or "" (older kernels have no id).
std::string EventFdKey(pid_t pid, int fd) {
  FILE* info = std::fopen(ProcPath(pid, "fdinfo", fd).c_str(), "re");
  if (info == nullptr) return "";
  std::string key;
  char line[256];
  while (std::fgets(line, sizeof(line), info) != nullptr) {
    unsigned long id = 0;
    if (std::sscanf(line, "eventfd-id: %lu", &id) == 1) {
      key = "eventfd:" + std::to_string(id);
      break;
    }
  }
  std::fclose(info);
  return key;
}

// "2, 3" for holders in the tree (as the program sees them), then "4711 (outside the traced
// tree)" for the others.
std::string PidList(const std::vector<DescriptorIndex::Holder>& holders, const TreePids& tree) {
  std::set<pid_t> inside, outside;
  for (const auto& holder : holders) {
    auto it = tree.find(holder.pid);
    if (it != tree.end()) {
      inside.insert(it->second);
    } else {
      outside.insert(holder.pid);
    }
  }
  std::string text;
  for (pid_t pid : inside) text += (text.empty() ? "" : ", ") + std::to_string(pid);
  for (pid_t pid : outside) text += (text.empty() ? "" : ", ") + std::to_string(pid) + " (outside the traced tree)";
  return text;
}

// Could a process outside `tree` make `fd` of `tgid` ready for `events`?
WakerVerdict ForDescriptor(pid_t tgid, int fd, short events, const DescriptorIndex& index,
                           const TreePids& tree, const TreeScope& scope, int depth);

WakerVerdict ByHolders(const std::string& file, const std::vector<DescriptorIndex::Holder>& holders,
                       const TreePids& tree, const std::string& what) {
  WakerVerdict verdict;
  verdict.outside = false;
  for (const auto& holder : holders) {
    if (tree.count(holder.pid) == 0) {
      verdict.outside = true;
    } else {
      verdict.tree_wakers.insert(holder.pid);
    }
  }
  verdict.explanation = file + ", " + what + " held " +
                        (holders.empty() ? std::string("by no process") : "by pid " + PidList(holders, tree));
  return verdict;
}

// An epoll descriptor is ready when one of its targets is: /proc/PID/fdinfo lists them.
WakerVerdict ForEpoll(pid_t tgid, int fd, const DescriptorIndex& index, const TreePids& tree,
                      const TreeScope& scope, int depth) {
  FILE* info = std::fopen(ProcPath(tgid, "fdinfo", fd).c_str(), "re");
  WakerVerdict verdict;
  if (info == nullptr) return verdict;
  verdict.outside = false;
  std::string targets;
  char line[512];
  while (std::fgets(line, sizeof(line), info) != nullptr) {
    int target = -1;
    unsigned events = 0;
    if (std::sscanf(line, "tfd: %d events: %x", &target, &events) != 2) continue;
    short wanted = 0;
    if (events & EPOLLIN) wanted |= POLLIN;
    if (events & EPOLLOUT) wanted |= POLLOUT;
    if (events & EPOLLPRI) wanted |= POLLPRI;
    const WakerVerdict part = ForDescriptor(tgid, target, wanted, index, tree, scope, depth + 1);
    verdict.outside = verdict.outside || part.outside;
    verdict.tree_wakers.insert(part.tree_wakers.begin(), part.tree_wakers.end());
    targets += (targets.empty() ? "" : "; ") + std::to_string(target) + ": " + part.explanation;
  }
  std::fclose(info);
  verdict.explanation = "epoll watching " + (targets.empty() ? std::string("nothing") : targets);
  return verdict;
}

WakerVerdict ForDescriptor(pid_t tgid, int fd, short events, const DescriptorIndex& index,
                           const TreePids& tree, const TreeScope& scope, int depth) {
  const std::string file = FdTarget(tgid, fd);
  WakerVerdict outside{true, file.empty() ? "fd " + std::to_string(fd) : file, {}};
  if (file.empty() || depth > 4) return outside;
  if (InodeOf(file, "pipe")) {
    // Anonymous pipes only: a named FIFO can be opened by anyone later.
    const bool reads = (events & POLLIN) != 0;
    const auto holders = index.HoldersOf(file, reads ? O_WRONLY : O_RDONLY);
    return ByHolders(file, holders, tree, reads ? "its write end" : "its read end");
  }
  if (auto inode = InodeOf(file, "socket")) {
    const auto socket_info = DescribeUnixSocket(*inode);
    // A listener takes connections from anyone who can name it — only the tree, when the name
    // is in its private /tmp or (abstract) in its private network namespace. Other families
    // (TCP, UDP) reach the network.
    if (socket_info && socket_info->state == kListening && PrivateName(socket_info->name, scope)) {
      WakerVerdict verdict{false, file + ", listening on " + Printable(socket_info->name) +
                                      ", which only the traced tree can reach", {}};
      for (const auto& [pid, program_pid] : tree) verdict.tree_wakers.insert(pid);
      return verdict;
    }
    if (!socket_info || socket_info->state == kListening || socket_info->peer == 0) return outside;
    const std::string peer = "socket:[" + std::to_string(socket_info->peer) + "]";
    return ByHolders(file, index.HoldersOf(peer), tree, "its peer " + peer);
  }
  if (file == "anon_inode:[eventpoll]") return ForEpoll(tgid, fd, index, tree, scope, depth);
  if (file == kEventFd) {
    // Any holder may write it (or read it, for a writer waiting on a full counter).
    const std::string key = EventFdKey(tgid, fd);
    if (key.empty()) return outside;
    return ByHolders(file, index.HoldersOf(key), tree, "it");
  }
  // A timerfd in virtual time fires when the supervisor says: never the outside world's.
  if (file == "anon_inode:[timerfd]" && scope.virtual_timers) return {false, file + ", a timer in virtual time", {}};
  return outside;  // a terminal, a file, a named FIFO, an eventfd…
}

}  // namespace

WakerVerdict WhoCanUnlock(pid_t tgid, int fd, const TreePids& tree) {
  std::string file = FdTarget(tgid, fd);
  if (file.empty()) file = "fd " + std::to_string(fd);
  WakerVerdict verdict{true, file + ", a lock whose holder is not known", {}};
  struct stat st{};
  if (stat(ProcPath(tgid, "fd", fd).c_str(), &st) != 0) return verdict;
  char device[64];
  std::snprintf(device, sizeof(device), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long>(st.st_ino));
  FILE* locks = std::fopen("/proc/locks", "re");
  if (locks == nullptr) return verdict;
  std::vector<DescriptorIndex::Holder> holders;
  bool unnamed = false;
  char line[512];
  while (std::fgets(line, sizeof(line), locks) != nullptr) {
    if (std::strstr(line, "->") != nullptr) continue;  // a waiter, not a holder
    char kind[16], mode[16], access[16], where[64];
    long pid = 0;
    if (std::sscanf(line, "%*d: %15s %15s %15s %ld %63s", kind, mode, access, &pid, where) != 5) continue;
    if (std::strcmp(where, device) != 0) continue;
    if (pid <= 0) unnamed = true;
    else holders.push_back({static_cast<pid_t>(pid), -1});
  }
  std::fclose(locks);
  if (unnamed || holders.empty()) return verdict;
  return ByHolders(file, holders, tree, "its lock");
}

void DescriptorIndex::Scan() {
  holders_.clear();
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  // chess-trace's own copies of the program's descriptors (held while a reader or writer
  // waits) are not holders: they never read or write.
  const pid_t self = getpid();
  while (dirent* process = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(process->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    const std::string fd_dir = "/proc/" + std::string(process->d_name) + "/fd";
    DIR* fds = opendir(fd_dir.c_str());
    if (fds == nullptr) continue;
    while (dirent* entry = readdir(fds)) {
      const long fd = std::strtol(entry->d_name, &end, 10);
      if (*end != '\0' || entry->d_name[0] == '.') continue;
      char target[256];
      const ssize_t n = readlinkat(dirfd(fds), entry->d_name, target, sizeof(target) - 1);
      if (n <= 0) continue;
      const std::string file(target, static_cast<size_t>(n));
      // Pipes and sockets are looked up by holder; eventfds, which all share one inode, by the
      // id their fdinfo gives each.
      std::string key;
      if (file.rfind("pipe:", 0) == 0 || file.rfind("socket:", 0) == 0) {
        key = file;
      } else if (file == kEventFd) {
        key = EventFdKey(static_cast<pid_t>(pid), static_cast<int>(fd));
      }
      if (!key.empty()) holders_[key].push_back({static_cast<pid_t>(pid), static_cast<int>(fd)});
    }
    closedir(fds);
  }
  closedir(proc);
}

std::vector<DescriptorIndex::Holder> DescriptorIndex::HoldersOf(const std::string& file, int access) const {
  std::vector<Holder> found;
  auto it = holders_.find(file);
  if (it == holders_.end()) return found;
  for (const Holder& holder : it->second) {
    if (access < 0) {
      found.push_back(holder);
      continue;
    }
    const std::optional<int> mode = AccessMode(holder.pid, holder.fd);
    if (mode == access || mode == O_RDWR) found.push_back(holder);
  }
  return found;
}

WakerVerdict WhoCanEnd(pid_t tgid, const IoWait& wait, const DescriptorIndex& index, const TreePids& tree,
                       const TreeScope& scope) {
  WakerVerdict verdict;
  verdict.outside = false;
  for (const FdInterest& interest : wait.fds) {
    const WakerVerdict part = ForDescriptor(tgid, interest.fd, interest.events, index, tree, scope, 0);
    verdict.outside = verdict.outside || part.outside;
    verdict.tree_wakers.insert(part.tree_wakers.begin(), part.tree_wakers.end());
    verdict.explanation += (verdict.explanation.empty() ? "" : "; ") + part.explanation;
  }
  if (wait.fds.empty()) verdict.outside = true;
  return verdict;
}

}  // namespace chess::supervisor
