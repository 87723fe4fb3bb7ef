// The kernel's floor for untrapped syscalls: the same loop in a process that has chess-trace's
// seccomp filter installed but no tracer attached. Prints "ns_per_call N".
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "bench/syscall_loop.h"
#include "seccomp/filter.h"
#include "seccomp/install.h"
#include "seccomp/syscall_table.h"

int main(int argc, char** argv) {
  const long count = argc > 1 ? std::atol(argv[1]) : 1000000;
  auto filter = chess::seccomp::CompileFilter(chess::seccomp::SyscallTable());
  if (!filter) {
    std::fprintf(stderr, "%s\n", filter.error().c_str());
    return 1;
  }
  // The result comes back through shared memory: write(2) and exit_group(2) are trapped, and
  // without a tracer they fail with ENOSYS (the child ends on the SIGSEGV of glibc's _exit).
  auto* result = static_cast<double*>(
      mmap(nullptr, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (result == MAP_FAILED) return 1;
  *result = -1;
  const pid_t child = fork();
  if (child == 0) {
    // No exec after this: execve is trapped and would fail without a tracer.
    if (chess::seccomp::InstallFilter(*filter, true) != 0) _exit(2);
    *result = chess_bench_ns_per_getppid(count);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (*result < 0) return 1;
  std::printf("ns_per_call %.1f\n", *result);
  return 0;
}
