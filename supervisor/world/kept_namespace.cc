#include "supervisor/world/kept_namespace.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "supervisor/ptrace/ptrace.h"

namespace chess::supervisor {
namespace {

// The namespace `kind` of `pid` opened, unless it is chess-trace's own (then -1, as on failure).
int OpenIfNotOurs(pid_t pid, const char* kind) {
  const std::string theirs = "/proc/" + std::to_string(pid) + "/ns/" + kind;
  const std::string ours = std::string("/proc/self/ns/") + kind;
  struct stat their_stat{}, our_stat{};
  if (stat(theirs.c_str(), &their_stat) != 0 || stat(ours.c_str(), &our_stat) != 0) return -1;
  if (their_stat.st_ino == our_stat.st_ino && their_stat.st_dev == our_stat.st_dev) return -1;
  return open(theirs.c_str(), O_RDONLY | O_CLOEXEC);
}

int64_t MonotonicMillis() {
  // A syscall, not the vDSO: chess-trace's own rdtsc may be trapped (TrapOwnTimestampCounter).
  timespec now{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace

std::shared_ptr<const KeptMountNamespace> KeptMountNamespace::Open(pid_t pid) {
  const int mount = OpenIfNotOurs(pid, "mnt");
  if (mount < 0) return nullptr;
  const int user = OpenIfNotOurs(pid, "user");
  return std::shared_ptr<const KeptMountNamespace>(new KeptMountNamespace(mount, user));
}

KeptMountNamespace::~KeptMountNamespace() {
  if (mount_ >= 0) close(mount_);
  if (user_ >= 0) close(user_);
}

int KeptMountNamespace::Enter() const {
  // The user namespace first: it is what gives the capability over the mount namespace.
  if (user_ >= 0 && setns(user_, CLONE_NEWUSER) != 0) return errno;
  if (setns(mount_, CLONE_NEWNS) != 0) return errno;
  return 0;
}

Result<InsideResult> RunInside(const KeptMountNamespace* space, const std::string& cwd,
                               const std::function<int()>& work, std::chrono::milliseconds timeout, size_t limit,
                               const std::function<bool()>& stop) {
  int output[2];
  int failure[2];  // the errno of a child that could not get inside, or EOF when it got there
  if (pipe2(output, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + strerror(errno)};
  if (pipe2(failure, O_CLOEXEC) != 0) {
    close(output[0]);
    close(output[1]);
    return Error{std::string("pipe: ") + strerror(errno)};
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    for (int fd : {output[0], output[1], failure[0], failure[1]}) close(fd);
    return Error{std::string("fork: ") + strerror(error)};
  }
  if (child == 0) {
    setpgid(0, 0);
    // Gone with chess-trace, whatever kills it: nothing else would end the work.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // chess-trace may trap its own rdtsc (PR_TSC_SIGSEGV, inherited and kept across exec).
    prctl(PR_SET_TSC, PR_TSC_ENABLE);
    // chess-trace's own handlers are not the work's: reset before unblocking, so that a signal
    // that comes in between is not taken by one of them.
    for (int signal = 1; signal < NSIG; ++signal) ::signal(signal, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    // What went wrong, without allocating (the parent may have had other threads).
    auto fail = [&](const char* what) {
      char text[256];
      const int length = std::snprintf(text, sizeof(text), "%s: errno %d", what, errno);
      if (length > 0) (void)!write(failure[1], text, static_cast<size_t>(std::min<int>(length, sizeof(text) - 1)));
      _exit(127);
    };
    if (space != nullptr) {
      if (int error = space->Enter(); error != 0) {
        errno = error;
        fail("setns into the execution's namespaces");
      }
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail("chdir into the working directory");
    const int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(output[1], STDOUT_FILENO) < 0 ||
        dup2(output[1], STDERR_FILENO) < 0) {
      fail("redirecting its output");
    }
    close(failure[1]);  // EOF: it got inside
    _exit(work());
  }
  setpgid(child, child);  // as the child does: the group exists whichever runs first
  close(output[1]);
  close(failure[1]);
  InsideResult result;
  std::string failed;
  int64_t deadline = MonotonicMillis() + timeout.count();
  bool stopping = false;
  std::optional<int> status;
  bool gone = false;
  bool output_open = true;
  bool failure_open = true;
  char buffer[65536];
  auto read_from = [&](int fd, bool& open, std::string& into, size_t most) {
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got > 0) {
      into.append(buffer, std::min(static_cast<size_t>(got), most - std::min(most, into.size())));
    } else if (got == 0 || errno != EINTR) {
      open = false;
    }
  };
  // Until the work ends (not its output: something it started in the background may hold that
  // open), or the deadline.
  for (;;) {
    // Asked to stop: the work is told (SIGTERM, to it alone: what it started is its business)
    // and given ten seconds to end.
    if (!stopping && stop && stop()) {
      stopping = true;
      kill(child, SIGTERM);
      deadline = std::min(deadline, MonotonicMillis() + 10'000);
    }
    status = ptrace::PollChild(child, gone);
    if (status || gone) break;
    const int64_t left = deadline - MonotonicMillis();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd watch[2] = {{output_open ? output[0] : -1, POLLIN, 0}, {failure_open ? failure[0] : -1, POLLIN, 0}};
    if (poll(watch, 2, static_cast<int>(std::min<int64_t>(left, 20))) < 0 && errno != EINTR) break;
    if (output_open && (watch[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      read_from(output[0], output_open, result.output, limit);
    }
    if (failure_open && (watch[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      read_from(failure[0], failure_open, failed, 4096);
    }
  }
  // The work's whole group goes, whatever it left behind (a daemon started by a check); then what
  // it wrote is drained: nobody holds the pipes once the group is gone.
  kill(-child, SIGKILL);
  if (!status && !gone) ptrace::ReapChild(child);
  int flags = fcntl(output[0], F_GETFL);
  fcntl(output[0], F_SETFL, flags | O_NONBLOCK);
  flags = fcntl(failure[0], F_GETFL);
  fcntl(failure[0], F_SETFL, flags | O_NONBLOCK);
  while (output_open) read_from(output[0], output_open, result.output, limit);
  while (failure_open) read_from(failure[0], failure_open, failed, 4096);
  close(output[0]);
  close(failure[0]);
  if (!failed.empty()) return Error{failed};
  result.status = status ? (WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status)) : 128 + SIGKILL;
  return result;
}

Result<InsideResult> RunCommandInside(const KeptMountNamespace* space, const std::string& cwd,
                                      const std::string& command, const std::vector<std::string>& env,
                                      std::chrono::milliseconds timeout, const std::function<bool()>& stop) {
  // Made before the fork: the child only execs.
  std::vector<char*> environment;
  for (const std::string& entry : env) environment.push_back(const_cast<char*>(entry.c_str()));
  environment.push_back(nullptr);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  return RunInside(
      space, cwd,
      [&]() {
        execve("/bin/sh", const_cast<char* const*>(argv), environment.data());
        return 127;
      },
      timeout, size_t{1} << 20, stop);
}

Result<std::vector<std::optional<std::string>>> ReadFilesInside(const KeptMountNamespace* space,
                                                                 const std::string& cwd,
                                                                 const std::vector<std::string>& paths,
                                                                 size_t limit) {
  // On the child's stdout, for each file: a presence byte, then (if present) its bytes in chunks,
  // each a 4-byte length and that many bytes, ending with a length of 0. No allocation in the
  // child: one buffer on its stack.
  auto write_all = [](const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    for (size_t at = 0; at < size;) {
      const ssize_t put = write(STDOUT_FILENO, bytes + at, size - at);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return false;
      at += static_cast<size_t>(put);
    }
    return true;
  };
  auto read_all = [&]() {
    char buffer[65536];
    for (const std::string& path : paths) {
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      const char present = fd >= 0 ? 1 : 0;
      if (!write_all(&present, 1)) return 1;
      if (fd < 0) continue;
      size_t sent = 0;
      while (sent < limit) {
        const ssize_t got = read(fd, buffer, std::min(sizeof(buffer), limit - sent));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        const uint32_t length = static_cast<uint32_t>(got);
        if (!write_all(&length, sizeof(length)) || !write_all(buffer, length)) return 1;
        sent += length;
      }
      close(fd);
      const uint32_t end = 0;
      if (!write_all(&end, sizeof(end))) return 1;
    }
    return 0;
  };
  const size_t most = paths.size() * (limit + 1 + sizeof(uint32_t) * (limit / 1024 + 2));
  auto ran = RunInside(space, cwd, read_all, std::chrono::seconds(30), most);
  if (!ran) return Error{ran.error()};
  if (ran->status != 0 || ran->timed_out) return Error{"the files could not be read in the execution's namespace"};
  std::vector<std::optional<std::string>> files;
  size_t at = 0;
  const std::string& data = ran->output;
  const Error cut{"the files read in the execution's namespace were cut short"};
  for (size_t i = 0; i < paths.size(); ++i) {
    if (at >= data.size()) return cut;
    const bool present = data[at++] != 0;
    if (!present) {
      files.push_back(std::nullopt);
      continue;
    }
    std::string content;
    for (;;) {
      uint32_t length = 0;
      if (at + sizeof(length) > data.size()) return cut;
      std::memcpy(&length, data.data() + at, sizeof(length));
      at += sizeof(length);
      if (length == 0) break;
      if (at + length > data.size()) return cut;
      content.append(data, at, length);
      at += length;
    }
    files.push_back(std::move(content));
  }
  return files;
}

}  // namespace chess::supervisor
