#include "supervisor/world/launcher.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "seccomp/install.h"
#include "supervisor/ptrace/ptrace.h"

namespace chess::supervisor {
namespace {

// Whether this process may install a seccomp filter without NO_NEW_PRIVS: it has CAP_SYS_ADMIN
// (root in a container usually has not). One raw syscall: safe between fork and exec.
bool HasSysAdmin() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)) != 0;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void ChildMain(const LaunchSpec& spec, char* const* argv, char* const* envp,
                            int go_fd, int error_fd, const cpu_set_t* cpus) {
  char go = 0;
  while (read(go_fd, &go, 1) < 0 && errno == EINTR) {
  }
  close(go_fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);  // the supervisor's mask must not leak into the program
  int error = 0;
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) error = errno;
  if (error == 0 && cpus != nullptr && sched_setaffinity(0, sizeof(*cpus), cpus) != 0) error = errno;
  // Both survive exec and are inherited by every thread and child of the program.
  if (error == 0 && spec.fixed_addresses && personality(static_cast<unsigned long>(PER_LINUX) | ADDR_NO_RANDOMIZE) < 0) error = errno;
  if (error == 0 && spec.trap_timestamp_counter && prctl(PR_SET_TSC, PR_TSC_SIGSEGV) != 0) error = errno;
  // Without CAP_SYS_ADMIN the kernel demands NO_NEW_PRIVS for a filter (also of root in a
  // container); with it, setuid programs keep working.
  if (error == 0) error = seccomp::InstallFilter(*spec.filter, !HasSysAdmin());
  if (error == 0) {
    execve(spec.path.c_str(), argv, envp);
    error = errno;
  }
  (void)!write(error_fd, &error, sizeof(error));
  _exit(error == ENOENT ? 127 : 126);
}

}  // namespace

std::function<void(int, int)> ProgramMain(const LaunchSpec& spec) {
  struct Prepared {
    LaunchSpec spec;
    std::vector<char*> argv;
    std::vector<char*> envp;
    cpu_set_t cpus;
  };
  auto prepared = std::make_shared<Prepared>();
  prepared->spec = spec;
  prepared->argv = CStrings(prepared->spec.argv);
  prepared->envp = CStrings(prepared->spec.env);
  CPU_ZERO(&prepared->cpus);
  if (spec.cpu) CPU_SET(*spec.cpu, &prepared->cpus);
  return [prepared](int go_fd, int error_fd) {
    ChildMain(prepared->spec, prepared->argv.data(), prepared->envp.data(), go_fd, error_fd,
              prepared->spec.cpu ? &prepared->cpus : nullptr);
  };
}

Result<LaunchedProgram> Launch(const LaunchSpec& spec, IsolatedInit* isolation) {
  int go[2];
  int error[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(error, O_CLOEXEC) != 0) {
    return Error{std::string("pipe: ") + std::strerror(errno)};
  }
  pid_t pid = 0;
  if (isolation != nullptr) {
    auto spawned = isolation->Spawn(go[0], error[1]);
    if (!spawned) {
      for (int fd : {go[0], go[1], error[0], error[1]}) close(fd);
      return Error{spawned.error()};
    }
    pid = *spawned;
  } else {
    const auto program = ProgramMain(spec);
    pid = fork();
    if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
    if (pid == 0) {
      close(go[1]);
      close(error[0]);
      program(go[0], error[1]);
    }
  }
  close(go[0]);
  close(error[1]);
  if (int rc = ptrace::Seize(pid); rc != 0) {
    kill(pid, SIGKILL);
    close(go[1]);
    close(error[0]);
    return Error{std::string("cannot trace the program (PTRACE_SEIZE: ") + std::strerror(rc) +
                 "). chess-trace needs ptrace: run as root or with CAP_SYS_PTRACE; in a container "
                 "add --cap-add=SYS_PTRACE; check /proc/sys/kernel/yama/ptrace_scope"};
  }
  const char release = 1;
  (void)!write(go[1], &release, 1);
  close(go[1]);
  return LaunchedProgram{pid, error[0]};
}

std::optional<int> ReadExecError(int exec_error_fd) {
  if (exec_error_fd < 0) return std::nullopt;
  int error = 0;
  const ssize_t n = read(exec_error_fd, &error, sizeof(error));
  if (n != sizeof(error)) return std::nullopt;
  return error;
}

// A 32-bit ELF: its syscalls would go through an ABI the filter refuses, so it could not run.
bool IsElf32(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char ident[5] = {};
  const bool read_all = read(fd, ident, sizeof(ident)) == static_cast<ssize_t>(sizeof(ident));
  close(fd);
  return read_all && ident[0] == 0x7f && ident[1] == 'E' && ident[2] == 'L' && ident[3] == 'F' && ident[4] == 1;
}

std::optional<ProgramNotRunnable> ResolveProgram(const std::string& name, std::string& path) {
  auto check = [](const std::string& candidate) -> std::optional<ProgramNotRunnable> {
    struct stat st{};
    if (stat(candidate.c_str(), &st) != 0) {
      return ProgramNotRunnable{127, candidate + ": " + std::strerror(errno)};
    }
    if (S_ISDIR(st.st_mode)) return ProgramNotRunnable{126, candidate + ": is a directory"};
    if (access(candidate.c_str(), X_OK) != 0) {
      return ProgramNotRunnable{126, candidate + ": permission denied (not executable; try chmod +x)"};
    }
    if (IsElf32(candidate)) {
      return ProgramNotRunnable{126, candidate + ": a 32-bit executable; chess-trace runs 64-bit (x86_64) programs only"};
    }
    return std::nullopt;
  };
  if (name.empty()) return ProgramNotRunnable{127, "no program given"};
  if (name.find('/') != std::string::npos) {
    path = name;
    return check(name);
  }
  const char* env_path = getenv("PATH");
  const std::string search = env_path ? env_path : "/usr/local/bin:/usr/bin:/bin";
  std::optional<ProgramNotRunnable> first_problem;
  size_t start = 0;
  while (start <= search.size()) {
    const size_t end = std::min(search.find(':', start), search.size());
    // An empty PATH entry means the current directory.
    const std::string dir = end > start ? search.substr(start, end - start) : std::string(".");
    const std::string candidate = dir + "/" + name;
    auto problem = check(candidate);
    if (!problem) {
      path = candidate;
      return std::nullopt;
    }
    if (problem->exit_code == 126 && !first_problem) first_problem = problem;
    start = end + 1;
  }
  if (first_problem) return first_problem;
  return ProgramNotRunnable{127, name + ": command not found (not on PATH)"};
}

}  // namespace chess::supervisor
