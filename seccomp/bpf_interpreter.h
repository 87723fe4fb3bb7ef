// What the program's own seccomp filters would answer. A program may install filters of its own
// (a sandbox); every call chess-trace injects into it or rewrites passes them too, and the kernel
// kills the program for a call its filters refuse. So before the supervisor changes a call it
// asks here: a classic-BPF interpreter for the programs the kernel accepts as seccomp filters
// (kernel/seccomp.c's seccomp_check_filter), and the rule by which several filters combine.
// Pure logic: no ptrace, no kernel.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace chess::seccomp {

// struct seccomp_data, as the kernel fills it in for a filter.
struct SyscallData {
  int32_t nr = 0;
  uint32_t arch = 0;
  uint64_t instruction_pointer = 0;  // just after the `syscall` instruction
  uint64_t args[6] = {};
};
static_assert(sizeof(SyscallData) == 64, "the layout of struct seccomp_data");

// The action part of a filter's answer (SECCOMP_RET_*), in the kernel's order of precedence:
// where filters disagree, the first of these wins.
enum class FilterAction : uint8_t { kKillProcess, kKillThread, kTrap, kErrno, kUserNotif, kTrace, kLog, kAllow };

// The action of a filter's answer. The kernel kills the process for an action it does not know.
FilterAction ActionOf(uint32_t verdict);

// The answer as the kernel's names say it: "SECCOMP_RET_ERRNO(EPERM)", "SECCOMP_RET_KILL_PROCESS".
std::string DescribeVerdict(uint32_t verdict);

// Whether the kernel runs a call its filters answered `verdict` for. On a fresh entry RET_TRACE
// hands the call to the tracer (chess-trace itself: a seccomp stop); when the filters run again
// after such a stop whose registers the tracer changed (`recheck`, Linux 4.8 and later), a
// RET_TRACE lets the call run. RET_USER_NOTIF hands it to someone else, and counts as refused.
bool Permits(uint32_t verdict, bool recheck);

// Runs one filter on `data`: its 32-bit answer, or nullopt when the program does something the
// kernel would not have accepted (it then never ran).
std::optional<uint32_t> RunFilter(std::span<const sock_filter> program, const SyscallData& data);

// The filters of one thread, newest first. A thread starts with its creator's; installing one
// adds it on top; they survive exec. Copies share the programs.
class FilterChain {
 public:
  bool Empty() const { return newest_ == nullptr; }
  size_t Size() const { return newest_ ? newest_->depth : 0; }
  // This chain with `program` installed on top.
  FilterChain With(std::vector<sock_filter> program) const;
  bool operator==(const FilterChain& other) const { return newest_ == other.newest_; }

  // What the filters answer together, as seccomp_run_filters does: every filter runs, the
  // action first in FilterAction's order wins, and of equal actions the newest filter's answer
  // (its data). An empty chain allows everything. nullopt if a filter could not be run.
  std::optional<uint32_t> Evaluate(const SyscallData& data) const;

 private:
  struct Filter {
    std::vector<sock_filter> program;
    std::shared_ptr<const Filter> previous;
    size_t depth = 1;
  };
  std::shared_ptr<const Filter> newest_;
};

}  // namespace chess::seccomp
