#include "supervisor/world/fork_server.h"
#include "supervisor/proc_maps.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "supervisor/clock.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/remote_memory.h"

namespace chess::supervisor {
namespace {

// How long one step of making or forking the template may take (a stop that does not come
// means the process died or was stopped by something else: the template is given up).
constexpr int64_t kStepNanos = 5'000'000'000;
// The most output a prefix may have written to a captured stdout or stderr: it is written
// back before each fork.
constexpr off_t kMaxPrefixOutput = off_t{1} << 20;
// sizeof(struct robust_list_head) on x86_64: the only length set_robust_list accepts.
constexpr uint64_t kRobustListHeadSize = 24;

MonoNanos Now() { return RealClock().Monotonic(); }

// The next stop of `tid`: nullopt if it died or none came in time.
std::optional<ptrace::WaitEvent> NextStop(pid_t tid) {
  const MonoNanos give_up = Now() + kStepNanos;
  auto event = ptrace::WaitFor(tid, [give_up] { return Now() > give_up; });
  if (!event || event->kind == ptrace::StopKind::kExited || event->kind == ptrace::StopKind::kKilled) {
    return std::nullopt;
  }
  return event;
}

// Makes `tid`, stopped at the seccomp stop `at`, run `call` (TemplateCloneCall) instead of its
// own, and takes it to that call's exit. Returns the clone's result (the child's pid in the
// caller's namespace, or -errno) and the child as chess-trace sees it; nullopt if `tid`
// misbehaved.
struct Cloned {
  int64_t result = 0;
  pid_t child = 0;
};
std::optional<Cloned> InjectClone(pid_t tid, const Registers& call) {
  if (!ptrace::SetRegisters(tid, call) || !ptrace::ResumeToSyscallExit(tid)) return std::nullopt;
  Cloned cloned;
  for (;;) {
    auto event = NextStop(tid);
    if (!event) return std::nullopt;
    if (event->kind == ptrace::StopKind::kEvent && event->value == PTRACE_EVENT_FORK) {
      if (auto child = ptrace::EventMessage(tid)) cloned.child = static_cast<pid_t>(*child);
      if (!ptrace::ResumeToSyscallExit(tid)) return std::nullopt;
      continue;
    }
    if (event->kind != ptrace::StopKind::kSyscallTrap) return std::nullopt;
    Registers after;
    if (!ptrace::GetRegisters(tid, after)) return std::nullopt;
    cloned.result = after.Return();
    return cloned;
  }
}

// Makes `tid`, stopped, chdir to `path`: the string is written below its stack's red zone (and
// what was there put back after), and the call made from its `syscall` instruction at
// `rewound`. The call is not one the filter traps: it stops at its entry and its exit only.
Result<void> EnterDirectory(pid_t tid, const Registers& rewound, const std::string& path) {
  constexpr uint64_t kRedZone = 128;
  const RemoteMemory memory(tid);
  const uint64_t address = (rewound.Sp() - kRedZone - path.size() - 1) & ~uint64_t{15};
  std::string saved(path.size() + 1, '\0');
  if (!memory.Read(address, saved.data(), saved.size()) || !memory.Write(address, path.c_str(), path.size() + 1)) {
    return Error{"the forked process's stack could not hold its working directory's name"};
  }
  bool done = ptrace::SetRegisters(tid, EnterDirectoryCall(rewound, address)) && ptrace::ResumeToSyscallExit(tid);
  auto event = done ? NextStop(tid) : std::nullopt;  // the call's entry
  done = event && event->kind == ptrace::StopKind::kSyscallTrap && ptrace::ResumeToSyscallExit(tid);
  event = done ? NextStop(tid) : std::nullopt;  // …and its exit
  Registers after;
  done = event && event->kind == ptrace::StopKind::kSyscallTrap && ptrace::GetRegisters(tid, after);
  if (!done || !memory.Write(address, saved.data(), saved.size())) {
    return Error{"the forked process did not enter its working directory"};
  }
  if (after.Return() != 0) {
    return Error{"the forked process could not enter its working directory " + path + ": " +
                 std::strerror(static_cast<int>(-after.Return()))};
  }
  return {};
}

// Puts `tid`, stopped after an injected call, back at its seccomp stop `at`.
bool ReturnToSeccompStop(pid_t tid, const Registers& rewound) {
  if (!ptrace::SetRegisters(tid, rewound) || !ptrace::Resume(tid)) return false;
  auto event = NextStop(tid);
  return event && event->kind == ptrace::StopKind::kSeccomp;
}

// Kills a tracee (through its pidfd, when there is one: the pid of one that died and was reaped
// may be someone else's by now) and reaps it, continuing the stops it may still report; bounded.
void KillAndReap(pid_t pid, int pidfd = -1) {
  if (pidfd >= 0) {
    if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) != 0) return;  // gone already
  } else {
    kill(pid, SIGKILL);
  }
  const int64_t give_up = Now() + 1'000'000'000;
  while (Now() < give_up) {
    bool gone = false;
    const std::optional<int> status = ptrace::PollChild(pid, gone);
    if (gone || (status && (WIFEXITED(*status) || WIFSIGNALED(*status)))) return;
    if (status) {
      ptrace::Resume(pid);
      continue;
    }
    const timespec pause{0, 200'000};
    nanosleep(&pause, nullptr);
  }
}

// Whether the template's memory has a writable shared mapping (shared memory, a file mapped
// MAP_SHARED for writing): its children would share it with it and with each other.
bool HasWritableSharedMapping(pid_t pid) {
  const std::vector<MapsEntry> mappings = ReadMaps(pid);
  return std::any_of(mappings.begin(), mappings.end(),
                     [](const MapsEntry& mapping) { return mapping.writable && mapping.shared; });
}

// A descriptor `pid` opened besides 0, 1 and 2, with what it is; nullopt: none. One it
// inherited from chess-trace (the same file on the same number) is every execution's anyway.
std::optional<std::string> OpenedDescriptor(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd/";
  DIR* fds = opendir(dir.c_str());
  if (fds == nullptr) return dir + " cannot be read";
  std::optional<std::string> found;
  while (const dirent* entry = readdir(fds)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    const int fd = static_cast<int>(std::strtol(entry->d_name, nullptr, 10));
    if (fd <= 2) continue;
    struct stat theirs{};
    struct stat ours{};
    const std::string path = dir + entry->d_name;
    if (stat(path.c_str(), &theirs) == 0 && fstat(fd, &ours) == 0 && theirs.st_dev == ours.st_dev &&
        theirs.st_ino == ours.st_ino) {
      continue;
    }
    char target[256] = {};
    (void)!readlink(path.c_str(), target, sizeof(target) - 1);
    found = "descriptor " + std::string(entry->d_name) + " (" + target + ")";
    break;
  }
  closedir(fds);
  return found;
}

}  // namespace

Registers TemplateCloneCall(const Registers& at, uint64_t child_tid, int fresh) {
  // Where glibc keeps the tid (set_tid_address), the child gets its own. The template gets IPC
  // and UTS namespaces of its own too (`fresh`): what the rest of the execution does in its
  // namespaces (a hostname set, a semaphore made) is not the template's.
  const uint64_t settid = child_tid != 0 ? CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID : 0;
  Registers call = at;
  call.SetSyscallNr(SYS_clone);
  call.SetArg(0, CLONE_PARENT | SIGCHLD | settid | static_cast<uint64_t>(fresh));
  call.SetArg(1, 0);  // the same stack: a fork
  call.SetArg(2, 0);
  call.SetArg(3, child_tid);
  call.SetArg(4, 0);
  return call;
}

Registers EnterDirectoryCall(const Registers& rewound, uint64_t path_address) {
  Registers call = rewound;
  call.raw().rax = SYS_chdir;
  call.SetArg(0, path_address);
  return call;
}

Registers RobustListCall(const Registers& rewound, uint64_t robust_list) {
  Registers call = rewound;
  call.raw().rax = SYS_set_robust_list;
  call.SetArg(0, robust_list);
  call.SetArg(1, kRobustListHeadSize);
  return call;
}

ForkServer::~ForkServer() { Discard(); }

bool ForkServer::Ready(const IsolatedInit& init) const {
  return template_ > 0 && init_ == &init && init.Started() && init.Generation() == generation_;
}

Result<void> ForkServer::Make(pid_t root, const Registers& at, const Thread& thread, int fresh, IsolatedInit& init,
                              PrefixState prefix) {
  tried_ = true;
  if (auto begun = init.BeginTemplate(); !begun) {
    unused_ = begun.error();
    return Error{unused_};
  }
  Registers rewound = at;
  rewound.RewindToSyscall(at.SyscallNr());
  child_tid_ = thread.clear_child_tid;
  const auto cloned = InjectClone(root, TemplateCloneCall(at, child_tid_, fresh));
  init.TemplateMade();
  const bool root_back = ReturnToSeccompStop(root, rewound);
  if (cloned && cloned->child > 0) {
    template_ = cloned->child;
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, template_, 0));
  }
  auto give_up = [this, &init](const std::string& why) -> Result<void> {
    if (template_ > 0) KillAndReap(template_, pidfd_);
    template_ = 0;
    if (pidfd_ >= 0) close(pidfd_);
    pidfd_ = -1;
    init.TemplateGone();
    unused_ = why;
    return Error{why};
  };
  if (!root_back) return give_up("the program's process did not come back to its clone");
  if (!cloned || cloned->result <= 0 || template_ <= 0) {
    return give_up("the template could not be forked" +
                   (cloned && cloned->result < 0 ? std::string(": ") + std::strerror(static_cast<int>(-cloned->result)) : ""));
  }
  if (!NextStop(template_) || !ReturnToSeccompStop(template_, rewound)) {
    return give_up("the template did not stop where it was forked");
  }
  if (auto other = OpenedDescriptor(template_)) return give_up(*other + " was open before the first thread was created");
  if (HasWritableSharedMapping(template_)) return give_up("the program had shared memory before its first thread");
  init_ = &init;
  generation_ = init.Generation();
  at_ = at;
  rewound_ = rewound;
  robust_list_ = thread.robust_list;
  fresh_ = fresh;
  enter_ = init.CwdToEnter();
  if (auto held = HoldStandardDescriptors(); !held) return give_up(held.error());
  prefix_ = std::move(prefix);
  return {};
}

Result<void> ForkServer::HoldStandardDescriptors() {
  const int pidfd = pidfd_;
  if (pidfd < 0) return Error{"the template has no pidfd (Linux 5.3 or later needed)"};
  dev_t first_out_dev = 0;
  ino_t first_out_ino = 0;
  std::string problem;
  for (int n = 0; n < 3 && problem.empty(); ++n) {
    Standard& standard = standard_[n];
    const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, n, 0));
    if (fd < 0) {
      if (errno != EBADF) problem = std::string("pidfd_getfd: ") + std::strerror(errno);
      continue;  // closed: it stays closed
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    struct stat st{};
    fstat(fd, &st);
    char link[256] = {};
    (void)!readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link, sizeof(link) - 1);
    const bool anonymous = std::strncmp(link, "/memfd:", 7) == 0;
    bool keep = false;
    if (n == 0) {
      if (S_ISREG(st.st_mode)) {
        standard.offset = lseek(fd, 0, SEEK_CUR);
        keep = true;
      } else if (S_ISFIFO(st.st_mode)) {
        // A pipe is fine only if nothing is left to read in it (chess-trace's own input pipe
        // holds the bytes and is closed for writing): every child then finds it at its end.
        int queued = 0;
        if (ioctl(fd, FIONREAD, &queued) != 0 || queued != 0) problem = "standard input is a pipe with data in it";
      } else if (S_ISSOCK(st.st_mode)) {
        problem = "standard input is a socket";
      }
    } else if (S_ISREG(st.st_mode)) {
      // Captured output: each execution's is the prefix's, then its own. A real file is not
      // chess-trace's to rewrite.
      if (!anonymous) {
        problem = "standard output or error is a file";
      } else if (st.st_size > kMaxPrefixOutput) {
        problem = "the program wrote more than 1 MiB before its first thread";
      } else if (n == 2 && st.st_dev == first_out_dev && st.st_ino == first_out_ino) {
        // stderr is stdout: written back once.
      } else {
        standard.written.resize(static_cast<size_t>(st.st_size));
        if (pread(fd, standard.written.data(), standard.written.size(), 0) != st.st_size) {
          problem = "the captured output could not be read";
        }
        keep = true;
      }
      if (n == 1) {
        first_out_dev = st.st_dev;
        first_out_ino = st.st_ino;
      }
    }
    if (keep) {
      standard.fd = fd;
    } else {
      close(fd);
    }
  }
  if (!problem.empty()) return Error{problem};
  return {};
}

bool ForkServer::RestoreStandardDescriptors() {
  for (Standard& standard : standard_) {
    if (standard.fd < 0) continue;
    if (standard.offset >= 0) {
      if (lseek(standard.fd, standard.offset, SEEK_SET) != standard.offset) return false;
      continue;
    }
    const auto size = static_cast<off_t>(standard.written.size());
    if (ftruncate(standard.fd, 0) != 0 ||
        pwrite(standard.fd, standard.written.data(), standard.written.size(), 0) != static_cast<ssize_t>(size) ||
        lseek(standard.fd, size, SEEK_SET) != size) {
      return false;
    }
  }
  return true;
}

Result<ForkServer::Forked> ForkServer::Fork() {
  auto fail = [this](const std::string& why) -> Result<Forked> {
    Discard();
    unused_ = "the fork server stopped: " + why;
    return Error{unused_};
  };
  if (!RestoreStandardDescriptors()) return fail(std::string("standard descriptors: ") + std::strerror(errno));
  const auto cloned = InjectClone(template_, TemplateCloneCall(at_, child_tid_, fresh_));
  const bool template_back = ReturnToSeccompStop(template_, rewound_);
  if (!cloned || cloned->child <= 0 || cloned->result <= 0) {
    if (cloned && cloned->child > 0) KillAndReap(cloned->child);
    return fail(cloned && cloned->result < 0 ? std::string("clone: ") + std::strerror(static_cast<int>(-cloned->result))
                                             : "the template did not fork");
  }
  const pid_t child = cloned->child;
  if (!template_back || !NextStop(child)) {
    KillAndReap(child);
    return fail("the template or its child did not stop");
  }
  // A fork leaves the child without a robust-futex list (the kernel's, not glibc's): set again.
  if (robust_list_ != 0) {
    bool done = ptrace::SetRegisters(child, RobustListCall(rewound_, robust_list_)) && ptrace::Resume(child);
    auto event = done ? NextStop(child) : std::nullopt;
    done = event && event->kind == ptrace::StopKind::kSeccomp && ptrace::ResumeToSyscallExit(child);
    event = done ? NextStop(child) : std::nullopt;
    Registers after;
    done = event && event->kind == ptrace::StopKind::kSyscallTrap && ptrace::GetRegisters(child, after) &&
           after.Return() == 0;
    if (!done) {
      KillAndReap(child);
      return fail("set_robust_list in the forked process");
    }
  }
  // The template's working directory is the private one of the execution it was made in (an
  // overlay mounted then); this execution's is the one mounted there since.
  if (!enter_.empty()) {
    if (auto entered = EnterDirectory(child, rewound_, enter_); !entered) {
      KillAndReap(child);
      return fail(entered.error());
    }
  }
  if (!ptrace::SetRegisters(child, rewound_)) {
    KillAndReap(child);
    return fail("the forked process vanished");
  }
  return Forked{child, static_cast<pid_t>(cloned->result)};
}

void ForkServer::Discard() {
  if (template_ > 0) {
    KillAndReap(template_, pidfd_);
    if (init_ != nullptr && init_->Started() && init_->Generation() == generation_) init_->TemplateGone();
  }
  template_ = 0;
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  for (Standard& standard : standard_) {
    if (standard.fd >= 0) close(standard.fd);
    standard = Standard{};
  }
}

}  // namespace chess::supervisor
