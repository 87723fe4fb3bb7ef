// ExecutionResult: what one supervised execution did — the data every report is built from.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/atomic_points.h"
#include "search/determinism_check.h"
#include "search/outcome.h"
#include "supervisor/report/backtrace.h"
#include "supervisor/program_images.h"
#include "supervisor/world/kept_namespace.h"
#include "supervisor/world/standard_descriptors.h"

namespace chess::supervisor {

// A thread waiting on a condition variable: which one, and the call it waits in.
struct ConditionWait {
  uint64_t address = 0;
  std::string name;  // "mailbox_filled (lost_wakeup_buggy)", or the address in hex
  std::string call;  // "pthread_cond_wait", "cnd_wait", "std::condition_variable::wait"
};

struct ThreadReport {
  uint32_t thread = 0;  // logical id: creation order, 0 = the root's main thread
  pid_t tid = 0;
  pid_t pid = 0;
  pid_t host_tid = 0;    // the tid outside the program's pid namespace (gdb -p takes this one)
  std::string state;     // "blocked", "waiting-external", "ready", …
  std::string syscall;   // "futex"
  std::string call;      // "futex(0x7ffd…, FUTEX_WAIT_PRIVATE, 2, NULL)"
  std::string resource;  // what it waits on: "futex 0x7ffd…", "futex balance_lock (bank)"
  // Blocked in a condition wait (announced by the preload shim, or seen on its stack).
  std::optional<ConditionWait> condition;
  // For a blocked thread: who could end its wait, in words ("thread 2, which holds the lock
  // 0x5555…", "its child pid 3"), and those threads' logical ids.
  std::string waits_for;
  std::vector<uint32_t> waits_for_threads;
  std::vector<StackFrame> frames;
};

// One step of a waits-for cycle: `thread`, blocked in `call`, waits for `next`.
struct WaitStep {
  uint32_t thread = 0;
  pid_t pid = 0;          // as the program sees it
  std::string call;       // the syscall it is blocked in: "read", "wait4", "futex"
  std::string waits_for;  // the edge in words, as in ThreadReport::waits_for
  uint32_t next = 0;
};

// The tree as it was handed over to a debugger: stopped (SIGSTOP) and no longer traced.
struct Handover {
  std::string where;                 // "before decision 42", "at the deadlock"
  std::vector<ThreadReport> threads; // every live thread, as it was
  std::vector<pid_t> processes;      // their pids outside the namespace (gdb -p takes these)
};

// For a livelock: the points a thread went round, one turn, each as "acquire 0x5555… at
// take_both_politely+0x3a (polite)".
struct RepeatedCycle {
  uint32_t thread = 0;
  std::vector<std::string> steps;
};

// A call chess-trace refused because it could not serialize what it does (io_uring_setup,
// userfaultfd, ptrace): the program got `error` instead. Not an outcome by itself — many
// programs fall back (io_uring to epoll) — but a failure after one is chess-trace's limit,
// not the program's bug (`unsupported`).
struct RefusedCall {
  std::string call;     // "io_uring_setup"
  int error = 0;        // what the program got: ENOSYS, EPERM
  pid_t pid = 0;        // the first process that made it, as the program sees it
  std::string why;      // "io_uring operations bypass the syscall filter"

  bool operator==(const RefusedCall&) const = default;
};

// What SupervisorOptions::inspect_world found the execution had left (docs/oracles.md): the files
// --output-file names and what --check said.
struct LeftBehind {
  std::vector<std::optional<std::string>> files;  // each file's contents; empty: missing
  std::optional<InsideResult> check;              // --check's status and output, when it ran
  std::string error;                              // why it could not look
};

struct ExecutionResult {
  search::Outcome outcome = search::Outcome::kError;
  std::optional<int> exit_status;
  std::optional<int> signal;
  std::vector<ThreadReport> threads;  // for deadlocks and hangs: every thread still alive
  std::vector<WaitStep> waits_for_cycle;  // for deadlocks: who waits for whom, round the cycle
  std::vector<RepeatedCycle> livelock_cycles;  // for livelocks: what each thread keeps doing
  uint64_t scheduling_points = 0;
  uint64_t threads_created = 0;
  double wall_seconds = 0;
  double virtual_seconds = 0;    // how far the program's clock moved (0 with real time)
  std::string message;           // what went wrong, for kError and for hangs
  std::optional<int> exec_errno;  // the program could not be executed
  int stopped_by_signal = 0;     // SIGINT/SIGTERM/SIGHUP to chess-trace ended the run
  bool forked = false;           // started from a fork server's template, not by execve
  bool handed_over = false;      // stopped where asked (SupervisorOptions::stop_at) and handed over
  std::vector<RefusedCall> refused;  // each refused call once, in the order first made
  std::vector<ProgramImage> images;  // what each program exec'd let the search see
  // The stacks SupervisorOptions::backtrace_before asked for, by decision: the thread that ran
  // before each of those decisions, where it stopped.
  std::map<uint64_t, std::vector<StackFrame>> decision_stacks;
  // What the program's descriptors 0-2 were when it started (cli::Execute looks), for a trace.
  std::optional<StandardDescriptors> standard_descriptors;
  // What the calls that create, remove or rename shared names found there, in order
  // (SupervisorOptions::watch_names; syscall_digest.h's NameEvents).
  std::vector<search::SyscallEvent> names;
  // With atomic points (SupervisorOptions::atomic_points): what the execution planted, stopped
  // at and learned.
  search::AtomicPointCount atomics;
  LeftBehind left_behind;
};

}  // namespace chess::supervisor
