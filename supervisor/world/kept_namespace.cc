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

#include <cerrno>
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
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    for (int fd : {output[0], output[1], failure[0], failure[1]}) close(fd);
    return Error{std::string("fork: ") + strerror(error)};
  }
  if (child == 0) {
    setpgid(0, 0);
    // chess-trace may trap its own rdtsc (PR_TSC_SIGSEGV, inherited and kept across exec).
    prctl(PR_SET_TSC, PR_TSC_ENABLE);
    // chess-trace's own handlers and mask are not the work's.
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    for (int signal = 1; signal < NSIG; ++signal) ::signal(signal, SIG_DFL);
    auto fail = [&](const char* what) {
      const int error = errno;
      const std::string text = std::string(what) + ": " + strerror(error);
      (void)!write(failure[1], text.data(), text.size());
      _exit(127);
    };
    if (space != nullptr) {
      if (int error = space->Enter(); error != 0) {
        errno = error;
        fail("setns into the execution's namespaces");
      }
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail(("chdir " + cwd).c_str());
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
  // Asked to stop: the work is told (SIGTERM) and given ten seconds to end.
  auto check_stop = [&]() {
    if (stopping || !stop || !stop()) return;
    stopping = true;
    kill(-child, SIGTERM);
    deadline = std::min(deadline, MonotonicMillis() + 10'000);
  };
  bool output_open = true;
  bool failure_open = true;
  char buffer[65536];
  while (output_open || failure_open) {
    check_stop();
    const int64_t left = deadline - MonotonicMillis();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd watch[2] = {{output_open ? output[0] : -1, POLLIN, 0}, {failure_open ? failure[0] : -1, POLLIN, 0}};
    if (poll(watch, 2, static_cast<int>(std::min<int64_t>(left, 1000))) < 0 && errno != EINTR) break;
    if (output_open && (watch[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      const ssize_t got = read(output[0], buffer, sizeof(buffer));
      if (got > 0) {
        result.output.append(buffer, std::min(static_cast<size_t>(got), limit - std::min(limit, result.output.size())));
      } else if (got == 0 || errno != EINTR) {
        output_open = false;
      }
    }
    if (failure_open && (watch[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      const ssize_t got = read(failure[0], buffer, sizeof(buffer));
      if (got > 0) {
        failed.append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        failure_open = false;
      }
    }
  }
  close(output[0]);
  close(failure[0]);
  // The output ended when the work did, or it closed it: wait for its status until the deadline.
  std::optional<int> status;
  bool gone = false;
  while (!result.timed_out) {
    check_stop();
    status = ptrace::PollChild(child, gone);
    if (status || gone) break;
    if (MonotonicMillis() >= deadline) {
      result.timed_out = true;
      break;
    }
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  // The work's whole group goes, whatever it left behind (a daemon started by a check).
  kill(-child, SIGKILL);
  if (!status && !gone) ptrace::ReapChild(child);
  if (!failed.empty()) return Error{failed};
  result.status = status ? (WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status)) : 128 + SIGKILL;
  return result;
}

Result<InsideResult> RunCommandInside(const KeptMountNamespace* space, const std::string& cwd,
                                      const std::string& command, const std::vector<std::string>& env,
                                      std::chrono::milliseconds timeout) {
  return RunInside(
      space, cwd,
      [&]() {
        std::vector<char*> environment;
        for (const std::string& entry : env) environment.push_back(const_cast<char*>(entry.c_str()));
        environment.push_back(nullptr);
        const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
        execve("/bin/sh", const_cast<char* const*>(argv), environment.data());
        return 127;
      },
      timeout);
}

Result<std::vector<std::optional<std::string>>> ReadFilesInside(const KeptMountNamespace* space,
                                                                 const std::string& cwd,
                                                                 const std::vector<std::string>& paths,
                                                                 size_t limit) {
  // Each file as a presence byte, its length (8 bytes) and its bytes, on the child's stdout.
  auto read_all = [&]() {
    for (const std::string& path : paths) {
      std::string bytes;
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      bool present = fd >= 0;
      char buffer[65536];
      while (present) {
        const ssize_t got = read(fd, buffer, sizeof(buffer));
        if (got == 0) break;
        if (got < 0) {
          if (errno == EINTR) continue;
          present = false;
          break;
        }
        bytes.append(buffer, std::min(static_cast<size_t>(got), limit - std::min(limit, bytes.size())));
      }
      if (fd >= 0) close(fd);
      const char flag = present ? 1 : 0;
      const uint64_t length = present ? bytes.size() : 0;
      if (write(STDOUT_FILENO, &flag, 1) != 1) return 1;
      if (write(STDOUT_FILENO, &length, sizeof(length)) != sizeof(length)) return 1;
      for (size_t at = 0; at < length;) {
        const ssize_t put = write(STDOUT_FILENO, bytes.data() + at, length - at);
        if (put <= 0) return 1;
        at += static_cast<size_t>(put);
      }
    }
    return 0;
  };
  const size_t most = paths.size() * (limit + 1 + sizeof(uint64_t));
  auto ran = RunInside(space, cwd, read_all, std::chrono::seconds(30), most);
  if (!ran) return Error{ran.error()};
  if (ran->status != 0 || ran->timed_out) return Error{"the files could not be read in the execution's namespace"};
  std::vector<std::optional<std::string>> files;
  size_t at = 0;
  const std::string& data = ran->output;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (at + 1 + sizeof(uint64_t) > data.size()) return Error{"the files read in the execution's namespace were cut short"};
    const bool present = data[at] != 0;
    uint64_t length = 0;
    std::memcpy(&length, data.data() + at + 1, sizeof(length));
    at += 1 + sizeof(length);
    if (at + length > data.size()) return Error{"the files read in the execution's namespace were cut short"};
    files.push_back(present ? std::optional<std::string>(data.substr(at, length)) : std::nullopt);
    at += length;
  }
  return files;
}

}  // namespace chess::supervisor
