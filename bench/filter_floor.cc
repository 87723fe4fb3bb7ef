// The kernel's floor for untrapped syscalls: the same loop in a process that has chess-trace's
// seccomp filter installed but no tracer attached. Prints "ns_per_call N".
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
  int out[2];
  if (pipe(out) != 0) return 1;
  const pid_t child = fork();
  if (child == 0) {
    // No exec after this: execve is trapped and would fail without a tracer.
    if (chess::seccomp::InstallFilter(*filter, true) != 0) _exit(2);
    const double ns = chess_bench_ns_per_getppid(count);
    (void)!write(out[1], &ns, sizeof(ns));
    _exit(0);
  }
  double ns = 0;
  const bool got = read(out[0], &ns, sizeof(ns)) == sizeof(ns);
  int status = 0;
  waitpid(child, &status, 0);
  if (!got) return 1;
  std::printf("ns_per_call %.1f\n", ns);
  return 0;
}
