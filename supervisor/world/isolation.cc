#include "supervisor/world/isolation.h"

#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "supervisor/ptrace/ptrace.h"
#include "supervisor/world/cwd_overlay.h"
#include "supervisor/world/private_tmp.h"

namespace chess::supervisor {
namespace {

constexpr size_t kInitStackSize = 256 * 1024;
// The stack a spawned program runs on until its execve: it shares the init's memory then.
constexpr size_t kSpawnStackSize = 64 * 1024;
constexpr char kSpawn = 'S';  // the spawned process's answer
constexpr char kUnshareFailed = 'U';  // …when it could not take fresh IPC and UTS namespaces
// A spawn request: this, or'ed with a mask of the standard descriptors (bit n: fd n) that come
// with it after the go and error pipes. The program gets chess-trace's 0, 1 and 2 as they are at
// each spawn (an execution's captured input and output), not as they were when the init began;
// one closed there is closed for the program too.
constexpr char kSpawnRequest = 0x40;
constexpr size_t kMaxPassed = 5;
constexpr char kMapsWritten = 'M';
constexpr char kKill = 'K';   // kill every process but the init, and say when none is left
constexpr char kEmpty = 'E';  // …none is
constexpr char kBusy = 'B';   // …some would not go
constexpr char kCwdChanged = 'W';  // a template's answer: the private working directory is not as mounted
constexpr char kNotReady = 'N';    // a spawn's answer: a fresh /tmp or working directory could not be mounted
// A fork server's template (supervisor/world/fork_server.h) is about to be forked from the program:
// it gets the pid kTemplatePid, out of the way of the pids an execution uses, and is spared
// when the namespace is emptied. Answered kEmpty, or kBusy when /tmp is no longer as mounted
// (a template made then would expect what the next execution's /tmp will not have).
constexpr char kTemplateBegin = 'T';
constexpr char kTemplateMade = 'P';    // …it was: pids go on where they were
constexpr char kTemplateGone = 'X';    // …it was killed: spare it no longer
constexpr pid_t kTemplatePid = 1000;
// Requests to the init must not look like a spawn request ('@' to 'G').
static_assert((kKill & ~7) != kSpawnRequest && (kTemplateBegin & ~7) != kSpawnRequest &&
              (kTemplateMade & ~7) != kSpawnRequest && (kTemplateGone & ~7) != kSpawnRequest);
// How long the init waits for the namespace to empty after killing everything in it.
constexpr int64_t kEmptyingNanos = 5'000'000'000;

struct Flag {
  const char* name;
  uint64_t flag;
};
constexpr Flag kFlags[] = {{"pid", CLONE_NEWPID},
                           {"uts", CLONE_NEWUTS},
                           {"ipc", CLONE_NEWIPC},
                           {"mnt", CLONE_NEWNS},
                           {"net", CLONE_NEWNET},
                           {"tmp", kPrivateTmp | CLONE_NEWNS},
                           {"cwd", kPrivateCwd | CLONE_NEWNS}};

// What the init tells chess-trace once it has prepared the namespaces: which step failed, and
// its errno (0: all is ready).
enum class SetupStep : int { kReady, kMounts, kHostname, kLoopback, kWorkingDirectory };
struct SetupReport {
  SetupStep step = SetupStep::kReady;
  int error = 0;
};

// What the init needs; it lives in the init's copy of chess-trace's memory.
struct InitContext {
  IsolationSpec spec;
  std::function<void(int, int)> program;
  int socket = -1;  // the init's end
  // The directories and files kept in a private /tmp, opened before the first tmpfs hid them: each
  // execution's fresh /tmp binds them again.
  std::vector<std::pair<std::string, int>> kept;
  // The private working directory (--isolate …,cwd).
  CwdOverlay cwd;
};

// One spawn: what the program's process needs until it runs the program.
struct SpawnRequest {
  InitContext* context;
  const std::vector<int>* fds;  // go and error pipes, then the standard descriptors of `standard`
  int standard;                 // the mask of kSpawnRequest
  int children;                 // the init's signalfd, closed in the child
};

int64_t MonotonicNanos() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000 + now.tv_nsec;
}

// Sends one byte with descriptors (SCM_RIGHTS) or with our credentials (SCM_CREDENTIALS).
bool SendMessage(int socket, char byte, const std::vector<int>& fds, bool credentials) {
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassed) + CMSG_SPACE(sizeof(ucred))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  size_t used = 0;
  cmsghdr* header = nullptr;
  if (!fds.empty()) {
    message.msg_controllen = sizeof(control);
    header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
    used += CMSG_SPACE(sizeof(int) * fds.size());
  }
  if (credentials) {
    message.msg_controllen = sizeof(control);
    header = header == nullptr ? CMSG_FIRSTHDR(&message) : CMSG_NXTHDR(&message, header);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_CREDENTIALS;
    header->cmsg_len = CMSG_LEN(sizeof(ucred));
    const ucred mine{getpid(), getuid(), getgid()};
    std::memcpy(CMSG_DATA(header), &mine, sizeof(mine));
    used += CMSG_SPACE(sizeof(ucred));
  }
  message.msg_controllen = used;
  ssize_t sent;
  do {
    sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent == 1;
}

// Receives one byte, the descriptors that came with it, and the sender's pid (translated by
// the kernel into our pid namespace) when credentials came.
bool ReceiveMessage(int socket, char& byte, std::vector<int>& fds, pid_t* sender) {
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassed) + CMSG_SPACE(sizeof(ucred))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  ssize_t got;
  do {
    got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got != 1) return false;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET) continue;
    if (header->cmsg_type == SCM_RIGHTS) {
      const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      fds.resize(count);
      std::memcpy(fds.data(), CMSG_DATA(header), count * sizeof(int));
    } else if (header->cmsg_type == SCM_CREDENTIALS && sender != nullptr) {
      ucred theirs{};
      std::memcpy(&theirs, CMSG_DATA(header), sizeof(theirs));
      *sender = theirs.pid;
    }
  }
  return true;
}

// Runs in the process the init spawns, on its own stack in the init's memory (the init waits,
// as for vfork, until it execs or dies): it takes fresh SysV IPC and UTS namespaces, so that
// nothing an execution leaves there (a semaphore, a hostname, the counter SysV ids come from)
// reaches the next, tells chess-trace its pid, and runs the program.
int SpawnedMain(void* argument) {
  const auto* request = static_cast<const SpawnRequest*>(argument);
  InitContext* context = request->context;
  close(request->children);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int fresh = context->spec.namespaces & (CLONE_NEWIPC | CLONE_NEWUTS);
  // A copy of the init's: the same hostname, no IPC objects. Without them the executions would
  // share what they leave there: then no program runs (a namespace limit reached, say).
  if (fresh != 0 && unshare(fresh) != 0) {
    SendMessage(context->socket, kUnshareFailed, {}, false);
    _exit(126);
  }
  SendMessage(context->socket, kSpawn, {}, true);  // our pid, as chess-trace sees it
  close(context->socket);
  // The received descriptors may sit on 0, 1 or 2 (when the init has them closed): above 2
  // first, then the standard ones are set from them.
  const std::vector<int>& received = *request->fds;
  int moved[kMaxPassed];
  for (size_t i = 0; i < received.size(); ++i) moved[i] = fcntl(received[i], F_DUPFD_CLOEXEC, 3);
  size_t next = 2;
  for (int fd = 0; fd <= 2; ++fd) {
    if ((request->standard & (1 << fd)) == 0) {
      close(fd);
    } else {
      dup2(moved[next++], fd);  // without close-on-exec: the program has it
    }
  }
  context->program(moved[0], moved[1]);
  _exit(127);
}

// Kills every process of the pid namespace but the init (and `spare`, a fork server's
// template, when there is one), reaping what comes back to it, until none is left (traced ones
// are gone once chess-trace has reaped them too). False when some are still there after
// kEmptyingNanos.
bool KillEveryoneElse(int children, pid_t spare) {
  const int64_t give_up = MonotonicNanos() + kEmptyingNanos;
  for (;;) {
    ptrace::ReapExitedChildren();
    if (spare == 0) {
      // kill(-1) from pid 1 reaches every other process of the namespace, zombies included.
      if (kill(-1, SIGKILL) != 0 && errno == ESRCH) return true;
    } else {
      // The namespace's /proc lists its processes, zombies included.
      DIR* proc = opendir("/proc");
      if (proc == nullptr) return false;
      bool any = false;
      while (const dirent* entry = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10));
        if (pid <= 1 || pid == spare) continue;
        kill(pid, SIGKILL);
        any = true;
      }
      closedir(proc);
      if (!any) return true;
    }
    if (MonotonicNanos() > give_up) return false;
    pollfd watch{children, POLLIN, 0};
    if (poll(&watch, 1, 1) > 0) {
      signalfd_siginfo info;
      (void)!read(children, &info, sizeof(info));
    }
  }
}

// Sets the namespace's last pid (the next process gets the one after); the value before.
int SetLastPid(int value) {
  int before = -1;
  const int fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
  if (fd < 0) return before;
  char text[16] = {};
  if (read(fd, text, sizeof(text) - 1) > 0) before = static_cast<int>(std::strtol(text, nullptr, 10));
  const std::string next = std::to_string(value);
  (void)!pwrite(fd, next.data(), next.size(), 0);
  close(fd);
  return before;
}

// Brings up `lo`, the only interface of a new network namespace (it starts down); 0 or the errno.
int BringUpLoopback() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  int error = 0;
  if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    error = errno;
  } else if ((request.ifr_flags & IFF_UP) == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) error = errno;
  }
  close(fd);
  return error;
}

// The init: pid 1 of the new namespaces. It prepares them, then forks programs on request and
// reaps every orphan until chess-trace goes away (then the kernel kills the namespace).
int InitMain(void* argument) {
  auto* context = static_cast<InitContext*>(argument);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int socket = context->socket;
  const IsolationSpec& spec = context->spec;
  if (spec.namespaces & CLONE_NEWUSER) {
    char byte = 0;
    std::vector<int> none;
    if (!ReceiveMessage(socket, byte, none, nullptr) || byte != kMapsWritten) _exit(1);
  }
  SetupReport report;
  int& error = report.error;
  if (spec.namespaces & CLONE_NEWNS) {
    report.step = SetupStep::kMounts;
    // Private mounts first, so the new /proc does not show up outside.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) error = errno;
    if (error == 0 && (spec.namespaces & CLONE_NEWPID) &&
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      error = errno;
    }
    // A /tmp of the tree's own: what one execution leaves there (a socket, a lock file, a
    // name mkstemp chose) is not seen by the next (each spawn mounts a new one), nor by anyone
    // else.
    if (spec.private_tmp) context->kept = HoldKept(spec.kept_in_tmp);
    // The real working directory, held before a private /tmp hides it: what is bound back there
    // goes with each /tmp replaced, and an overlay's lower layer must not.
    const int held = spec.private_cwd ? context->cwd.Hold(spec.cwd) : 0;
    if (error == 0 && spec.private_tmp) error = MountPrivateTmp(context->kept, false);
    // The working directory through an overlay of each execution's own (under a private /tmp,
    // over the real directory bound back there).
    if (error == 0 && spec.private_cwd) {
      report.step = SetupStep::kWorkingDirectory;
      error = held != 0 ? held : context->cwd.Mount();
    }
  }
  if (error == 0 && (spec.namespaces & CLONE_NEWUTS)) {
    report.step = SetupStep::kHostname;
    if (sethostname(spec.hostname.data(), spec.hostname.size()) != 0 || setdomainname("(none)", 6) != 0) error = errno;
  }
  // A new network namespace has only `lo`, and it is down: up, the tree can talk to itself
  // over 127.0.0.1 and ::1, and nothing else.
  if (error == 0 && (spec.namespaces & CLONE_NEWNET)) {
    report.step = SetupStep::kLoopback;
    error = BringUpLoopback();
  }
  if (error == 0) report.step = SetupStep::kReady;
  (void)!write(socket, &report, sizeof(report));
  if (error != 0) _exit(1);

  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  sigprocmask(SIG_BLOCK, &child_signal, nullptr);
  const int children = signalfd(-1, &child_signal, SFD_CLOEXEC);
  std::unique_ptr<char[]> spawn_stack(new char[kSpawnStackSize]);
  uint64_t spawns = 0;
  std::optional<TmpState> fresh_tmp;  // the private /tmp as mounted, before any program ran
  const std::vector<std::string> made = DirectoriesMadeFor(context->kept);
  pid_t spare = 0;  // a fork server's template
  int pids_before_template = -1;
  // What each execution's program starts with: it is pid 2, whatever ran before it (all of
  // that is reaped), and the first has the /tmp the setup mounted; each later one gets a new
  // one, unless the last execution left that one as it found it (a new tmpfs costs over
  // 100 µs). 0 or the errno.
  // The working directory likewise: a new overlay when the last execution wrote through it.
  auto prepare_for_program = [&]() {
    if (spec.namespaces & CLONE_NEWPID) SetLastPid(1);
    int error = 0;
    bool tmp_replaced = false;
    if (spec.private_tmp && spawns > 0 && (!fresh_tmp || TmpState::Read(made) != fresh_tmp)) {
      error = MountPrivateTmp(context->kept, true);
      fresh_tmp = TmpState::Read(made);
      tmp_replaced = true;
    } else if (spec.private_tmp && spawns == 0) {
      fresh_tmp = TmpState::Read(made);
    }
    if (error == 0 && spec.private_cwd) {
      // An overlay under /tmp went with the /tmp it was mounted in.
      const bool gone = tmp_replaced && spec.cwd.rfind("/tmp/", 0) == 0;
      if (gone) context->cwd.Forget();
      if (gone || !context->cwd.Pristine()) error = context->cwd.Mount();
    }
    return error;
  };
  for (;;) {
    pollfd watch[2] = {{socket, POLLIN, 0}, {children, POLLIN, 0}};
    if (poll(watch, 2, -1) < 0) continue;
    if (watch[1].revents & POLLIN) {
      signalfd_siginfo info;
      (void)!read(children, &info, sizeof(info));
      ptrace::ReapExitedChildren();
    }
    if (watch[0].revents & (POLLIN | POLLHUP)) {
      char byte = 0;
      std::vector<int> fds;
      if (!ReceiveMessage(socket, byte, fds, nullptr)) _exit(0);  // chess-trace is gone
      if (byte == kKill) {
        bool emptied = KillEveryoneElse(children, spare);
        // The next execution is forked from the template, without a spawn request: the world
        // is made ready for it now.
        if (emptied && spare != 0) emptied = prepare_for_program() == 0;
        SendMessage(socket, emptied ? kEmpty : kBusy, {}, false);
        continue;
      }
      if (byte == kTemplateBegin) {
        const bool pristine = !spec.private_tmp || (fresh_tmp && TmpState::Read(made) == fresh_tmp);
        const bool cwd_pristine = !spec.private_cwd || context->cwd.Pristine();
        if (pristine && cwd_pristine) {
          pids_before_template = SetLastPid(kTemplatePid - 1);
          spare = kTemplatePid;
        }
        SendMessage(socket, !pristine ? kBusy : !cwd_pristine ? kCwdChanged : kEmpty, {}, false);
        continue;
      }
      if (byte == kTemplateMade) {
        if (pids_before_template >= 0) SetLastPid(pids_before_template);
        SendMessage(socket, kEmpty, {}, false);
        continue;
      }
      if (byte == kTemplateGone) {
        spare = 0;
        SendMessage(socket, kEmpty, {}, false);
        continue;
      }
      if ((byte & ~7) != kSpawnRequest) continue;
      const int standard = byte & 7;
      if (fds.size() != 2 + static_cast<size_t>(__builtin_popcount(standard))) {
        for (int fd : fds) close(fd);
        SendMessage(socket, 0, {}, false);
        continue;
      }
      const int error = prepare_for_program();
      ++spawns;
      pid_t child = -1;
      if (error == 0) {
        // CLONE_VM and CLONE_VFORK, as posix_spawn does: no copy of the init's memory (it is a
        // copy of chess-trace's), and the init waits until the program's execve.
        SpawnRequest request{context, &fds, standard, children};
        child = clone(SpawnedMain, spawn_stack.get() + kSpawnStackSize, CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
      }
      for (int fd : fds) close(fd);
      if (child < 0) SendMessage(socket, error != 0 ? kNotReady : 0, {}, false);
    }
  }
}

// The --isolate word a spec was made from.
uint64_t WordOf(const IsolationSpec& spec) {
  return static_cast<uint64_t>(spec.namespaces) | (spec.private_tmp ? kPrivateTmp : 0) |
         (spec.private_cwd ? kPrivateCwd : 0);
}

}  // namespace

IsolationSpec IsolationFromWord(uint64_t isolation) {
  IsolationSpec spec;
  spec.namespaces = static_cast<int>(isolation & 0xffffffffu);
  spec.private_tmp = (isolation & kPrivateTmp) != 0;
  spec.private_cwd = (isolation & kPrivateCwd) != 0;
  return spec;
}

Result<uint64_t> ParseIsolation(const std::string& list) {
  if (list == "none") return uint64_t{0};
  uint64_t flags = 0;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    bool known = false;
    for (const Flag& flag : kFlags) {
      if (name == flag.name) {
        flags |= flag.flag;
        known = true;
      }
    }
    if (!known) {
      return Error{"--isolate: unknown namespace `" + name + "`; expected none, or a comma-separated list of "
                   "pid, uts, ipc, mnt, net, tmp, cwd"};
    }
    start = end + 1;
  }
  return flags;
}

std::string IsolationName(uint64_t isolation) {
  std::string text;
  for (const Flag& flag : kFlags) {
    if ((isolation & flag.flag) != flag.flag) continue;
    if (!text.empty()) text += ',';
    text += flag.name;
  }
  return text.empty() ? "none" : text;
}

IsolatedInit::~IsolatedInit() {
  // By now every tracee of the namespaces has been reaped (KillTree): the init goes at once, and
  // is reaped here rather than left a zombie for as long as chess-trace lives.
  const pid_t init = init_pid_;
  Stop();
  for (int i = 0; init > 0 && i < 1000; ++i) {
    bool gone = false;
    if (ptrace::PollChild(init, gone) || gone) break;  // reaped, or not ours to reap
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
}

Result<void> IsolatedInit::Start(const IsolationSpec& spec, std::function<void(int, int)> program) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    return Error{std::string("socketpair: ") + std::strerror(errno)};
  }
  const int on = 1;
  setsockopt(sockets[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
  InitContext context{spec, std::move(program), sockets[1], {}, {}};
  int flags = spec.namespaces;
  // Without root, a user namespace makes the others possible; the program keeps its own uid.
  if (geteuid() != 0) flags |= CLONE_NEWUSER;
  context.spec.namespaces = flags;
  std::unique_ptr<char[]> stack(new char[kInitStackSize]);
  const pid_t init = clone(InitMain, stack.get() + kInitStackSize, flags | SIGCHLD, &context);
  close(sockets[1]);
  if (init < 0) {
    const int error = errno;
    close(sockets[0]);
    return Error{std::string("cannot create namespaces (") + IsolationName(WordOf(spec)) + "): " +
                 std::strerror(error)};
  }
  init_pid_ = init;
  ++generation_;
  control_ = sockets[0];
  namespaces_ = spec.namespaces;
  private_tmp_ = spec.private_tmp;
  private_cwd_ = spec.private_cwd;
  cwd_ = spec.private_cwd ? spec.cwd : std::string();
  if (flags & CLONE_NEWUSER) {
    const std::string base = "/proc/" + std::to_string(init) + "/";
    auto write_file = [](const std::string& path, const std::string& text) {
      const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return false;
      const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      close(fd);
      return ok;
    };
    const bool mapped = write_file(base + "setgroups", "deny") &&
                        write_file(base + "uid_map", std::to_string(geteuid()) + " " + std::to_string(geteuid()) + " 1") &&
                        write_file(base + "gid_map", std::to_string(getegid()) + " " + std::to_string(getegid()) + " 1");
    if (!mapped || !SendMessage(control_, kMapsWritten, {}, false)) {
      Abandon();
      return Error{"cannot map the user namespace of the isolated tree"};
    }
  }
  SetupReport report;
  ssize_t got;
  do {
    got = read(control_, &report, sizeof(report));  // chess-trace's tick may interrupt it
  } while (got < 0 && errno == EINTR);
  if (got != sizeof(report) || report.error != 0) {
    Abandon();
    if (got == sizeof(report) && report.step == SetupStep::kLoopback) {
      return Error{std::string("--isolate net: could not bring up loopback: ") + std::strerror(report.error)};
    }
    if (got == sizeof(report) && report.step == SetupStep::kWorkingDirectory) {
      return Error{WhyNoOverlay(spec.cwd, report.error)};
    }
    return Error{std::string("cannot set up the namespaces (") + IsolationName(WordOf(spec)) +
                 "): " + (got == sizeof(report) && report.error != 0 ? std::strerror(report.error) : "the init failed")};
  }
  return {};
}

Result<pid_t> IsolatedInit::Spawn(int go_fd, int error_fd) {
  std::vector<int> fds{go_fd, error_fd};
  char request = kSpawnRequest;
  for (int fd = 0; fd <= 2; ++fd) {
    // Closed, or one of chess-trace's own descriptors that took the free number (close-on-exec,
    // as all of them are): closed for the program too.
    const int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC) != 0) continue;
    request = static_cast<char>(request | (1 << fd));
    fds.push_back(fd);
  }
  if (!SendMessage(control_, request, fds, false)) {
    return Error{std::string("cannot reach the namespace's init: ") + std::strerror(errno)};
  }
  if (!AwaitAnswer(kEmptyingNanos, {})) return Error{"the namespace's init did not answer a spawn request"};
  char byte = 0;
  std::vector<int> none;
  pid_t child = 0;
  if (!ReceiveMessage(control_, byte, none, &child)) return Error{"the namespace's init could not fork the program"};
  if (byte == kUnshareFailed) {
    return Error{"the program could not get SysV IPC and UTS namespaces of its own (unshare failed: a limit in "
                 "/proc/sys/user/max_ipc_namespaces or max_uts_namespaces?)"};
  }
  if (byte == kNotReady) return Error{"the namespace's init could not mount a fresh /tmp or working directory"};
  if (byte != kSpawn || child <= 0) return Error{"the namespace's init could not fork the program"};
  return child;
}

bool IsolatedInit::Reusable() const {
  return Started() && (namespaces_ & CLONE_NEWPID) != 0 && (namespaces_ & CLONE_NEWNET) == 0;
}

bool IsolatedInit::EmptyNamespace(const std::function<void()>& reap) {
  // A little longer than the init waits: it answers either way.
  return Reusable() && Ask(kKill, kEmptyingNanos + 1'000'000'000, reap);
}

bool IsolatedInit::AwaitAnswer(int64_t wait_nanos, const std::function<void()>& meanwhile) {
  // Bounded: an init that cannot answer (stuck, or gone) must not hang chess-trace.
  const int64_t give_up = MonotonicNanos() + wait_nanos;
  for (;;) {
    if (meanwhile) meanwhile();
    pollfd watch{control_, POLLIN, 0};
    const int ready = poll(&watch, 1, meanwhile ? 1 : 100);
    if (ready > 0) return true;
    if ((ready < 0 && errno != EINTR) || MonotonicNanos() > give_up) return false;
  }
}

char IsolatedInit::Answer(char request, int64_t wait_nanos, const std::function<void()>& meanwhile) {
  if (!Started() || !SendMessage(control_, request, {}, false) || !AwaitAnswer(wait_nanos, meanwhile)) return 0;
  char byte = 0;
  std::vector<int> none;
  return ReceiveMessage(control_, byte, none, nullptr) ? byte : 0;
}

bool IsolatedInit::Ask(char request, int64_t wait_nanos, const std::function<void()>& meanwhile) {
  return Answer(request, wait_nanos, meanwhile) == kEmpty;
}

Result<void> IsolatedInit::BeginTemplate() {
  if (!Reusable() || (namespaces_ & CLONE_NEWNS) == 0) return Error{"the namespaces cannot hold a template"};
  switch (Answer(kTemplateBegin, 5'000'000'000, {})) {
    case kEmpty: return {};
    case kBusy: return Error{"the program changed /tmp before its first thread was created"};
    case kCwdChanged: return Error{"the program changed its working directory before its first thread was created"};
    default: return Error{"the namespaces' init did not answer"};
  }
}

void IsolatedInit::TemplateMade() { (void)Ask(kTemplateMade, 5'000'000'000, {}); }

void IsolatedInit::TemplateGone() { (void)Ask(kTemplateGone, 5'000'000'000, {}); }

void IsolatedInit::Abandon() {
  const pid_t init = init_pid_;
  Stop();
  if (init > 0) ptrace::ReapChild(init);  // nothing was traced in there yet
}

void IsolatedInit::Stop() {
  if (control_ >= 0) close(control_);
  control_ = -1;
  // pid 1 goes, and the kernel kills its namespace. Not waited for here: the namespace is gone
  // only once chess-trace has reaped its tracees in it, which the caller does (see KillTree).
  if (init_pid_ > 0) kill(init_pid_, SIGKILL);
  init_pid_ = 0;
}

}  // namespace chess::supervisor
