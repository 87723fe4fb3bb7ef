// The raw cost of one trapped syscall: a child traps a private syscall number in a loop; the
// tracer does nothing but waitpid + PTRACE_CONT per stop, pinned to the child's CPU as
// chess-trace is. Prints "us_per_stop N".
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/tracer_bench.h"
#include "seccomp/arch.h"
#include "seccomp/filter.h"
#include "seccomp/install.h"
#include "seccomp/syscall_table.h"
#include "supervisor/ptrace/ptrace.h"

namespace tracing = chess::supervisor::ptrace;

int main(int argc, char** argv) {
  const long stops = argc > 1 ? std::atol(argv[1]) : 100000;
  // Trap only the hypercall number: the loop's syscall, and nothing the child does otherwise.
  std::vector<chess::seccomp::SyscallRow> table;
  for (const auto& row : chess::seccomp::SyscallTable()) {
    if (row.nr == chess::seccomp::kHypercallFirst) table.push_back(row);
  }
  auto filter = chess::seccomp::CompileFilter(table);
  if (!filter) return 1;
  PinToOneCpu();
  HeldChild held([&filter, stops] {
    if (chess::seccomp::InstallFilter(*filter, true) != 0) return 2;
    for (long i = 0; i < stops; ++i) syscall(chess::seccomp::kHypercallFirst);
    return 0;
  });
  const pid_t child = held.Pid();
  if (child < 0) return 1;
  if (tracing::Seize(child) != 0) {
    std::perror("PTRACE_SEIZE");
    kill(child, SIGKILL);
    return 1;
  }
  held.Release();
  timespec start{}, end{};
  long seen = 0;
  for (;;) {
    auto event = tracing::WaitFor(child);
    if (!event || event->kind == tracing::StopKind::kExited || event->kind == tracing::StopKind::kKilled) break;
    if (event->kind == tracing::StopKind::kSeccomp && seen++ == 0) clock_gettime(CLOCK_MONOTONIC, &start);
    tracing::Resume(child);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  if (seen < 2) return 1;
  const double us = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / (seen - 1);
  std::printf("us_per_stop %.2f\n", us);
  return 0;
}
