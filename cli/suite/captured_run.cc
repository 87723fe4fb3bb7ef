#include "cli/suite/captured_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>

#include "supervisor/ptrace/ptrace.h"

namespace chess::cli::suite {
namespace {

class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() { Close(); }
  int get() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct PipeEnds {
  Descriptor read;
  Descriptor write;
};

bool MakePipe(PipeEnds& ends) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  ends.read.Reset(fds[0]);
  ends.write.Reset(fds[1]);
  return true;
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(char* const* argv, int out, int err, int exec_error) {
  setpgid(0, 0);
  // chess-trace's own signal handling is not the listing's: default dispositions, nothing blocked.
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGALRM}) ::signal(signal, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  execvp(argv[0], argv);
  const int error = errno;
  [[maybe_unused]] const ssize_t written = write(exec_error, &error, sizeof error);
  _exit(127);
}

// Kills the child's process group and reaps the child: the one way out of RunCaptured once it
// has forked, whether the listing ended, hung or was not started.
class ChildGroup {
 public:
  explicit ChildGroup(pid_t pid) : pid_(pid) {}
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;
  ~ChildGroup() {
    kill(-pid_, SIGKILL);
    if (!reaped_) {
      kill(pid_, SIGKILL);  // in case it had not made its group yet
      supervisor::ptrace::ReapChild(pid_);
    }
  }
  // Its wait status if it has ended by now.
  std::optional<int> Poll() {
    bool gone = false;
    std::optional<int> status = supervisor::ptrace::PollChild(pid_, gone);
    reaped_ = status.has_value() || gone;
    return status;
  }

 private:
  pid_t pid_;
  bool reaped_ = false;
};

}  // namespace

std::string ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat info {};
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::string DescribeWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

Result<CapturedRun> RunCaptured(const std::vector<std::string>& command, std::chrono::milliseconds timeout) {
  if (command.empty()) return Error{"no command to run"};
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  PipeEnds out, err, exec_error;
  if (!MakePipe(out) || !MakePipe(err) || !MakePipe(exec_error)) {
    return Error{std::string("cannot run ") + command[0] + ": pipe: " + std::strerror(errno)};
  }
  const pid_t pid = fork();
  if (pid < 0) return Error{std::string("cannot run ") + command[0] + ": fork: " + std::strerror(errno)};
  if (pid == 0) ExecChild(argv.data(), out.write.get(), err.write.get(), exec_error.write.get());
  setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
  ChildGroup child(pid);
  out.write.Close();
  err.write.Close();
  exec_error.write.Close();

  int exec_errno = 0;
  if (read(exec_error.read.get(), &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    return Error{"cannot run " + command[0] + ": " + std::strerror(exec_errno)};
  }

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left_ms = [&] {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max<int64_t>(0, left.count());
  };
  CapturedRun run;
  std::array<pollfd, 2> fds{{{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&run.out, &run.err};
  const std::string timed_out = command[0] + " did not finish listing its tests within " +
                                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) +
                                " s: it was killed";
  // Read until the command has ended and nothing more is there to read. Its end is looked for
  // every 20 ms as well as at the end of its pipes: a process it left in the background may hold
  // them open.
  std::optional<int> status;
  while (true) {
    const int wait_ms = status ? 0 : static_cast<int>(std::min<int64_t>(left_ms(), 20));
    const int ready = poll(fds.data(), fds.size(), wait_ms);  // with both pipes closed, a sleep
    if (ready < 0 && errno == EINTR) continue;
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[65536];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;  // end of file (the descriptor closes with its PipeEnds)
      }
    }
    if (ready > 0 && left_ms() > 0) continue;
    if (status) {
      run.status = *status;
      return run;
    }
    status = child.Poll();
    if (!status && left_ms() == 0) return Error{timed_out};
  }
}

}  // namespace chess::cli::suite
