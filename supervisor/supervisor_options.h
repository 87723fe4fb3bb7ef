// SupervisorOptions: how the supervisor runs an execution, as the commands (cli/) set it up.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/atomic_points.h"
#include "search/determinism_check.h"
#include "search/execution_log.h"
#include "supervisor/code/code_sites.h"
#include "supervisor/execution_result.h"
#include "supervisor/world/fork_server.h"
#include "supervisor/world/isolation.h"

namespace chess::supervisor {

struct SupervisorOptions {
  // A thread that runs this long without giving up the CPU is interrupted (a forced yield)
  // when another thread could run.
  std::chrono::nanoseconds slice = std::chrono::milliseconds(10);
  // How long threads may wait only on the outside world before the run ends as `hang`.
  std::optional<std::chrono::nanoseconds> external_wait;
  // The CPU mask the program sees when the tree is pinned; empty when it is not.
  std::vector<uint8_t> visible_affinity;
  // The most processes the tree may have at once; a fork past it ends the run.
  size_t max_processes = 1000;
  // Reads, writes and polls of pipes and sockets are scheduling points (for a search); a run
  // that only needs to be faithful lets ready I/O through without stopping to decide.
  bool io_points = false;
  // Called once the tree is gone, before its namespaces are made ready for the next execution
  // (a fork server's template has the init do it as soon as the tree is emptied), with the
  // tree's mount namespace held open (null: it had none of its own, and what it left is where
  // chess-trace sees it). For the oracles that look at what it left (--check, --output-file),
  // which note what they find in the result.
  std::function<void(ExecutionResult&, const KeptMountNamespace*)> inspect_world;
  // Atomic points (--sync-points atomics): breakpoints before the atomic instructions of the
  // program's code, in the plan's mode; nullopt: none. The filter must trap code mappings
  // (seccomp::TrapLayers::code_mappings) so that libraries are patched before they run.
  std::optional<search::AtomicPointPlan> atomic_points;
  // Where decoded files are kept between executions, so a search decodes each file once (owned
  // by whoever runs many executions); null: this execution decodes for itself.
  code::CodeCache* code_cache = nullptr;
  // --focus: the programs whose threads the search explores (by the basename of the exec'd
  // file or of the executable); the other processes run without preemptions. Empty: all.
  std::vector<std::string> focus;
  // Virtual time whose CLOCK_REALTIME starts at this epoch (nanoseconds since 1970); nullopt:
  // the program sees the machine's clocks and sleeps take real time.
  std::optional<int64_t> epoch;
  // The seed of the program's randomness (getrandom, /dev/urandom, AT_RANDOM); nullopt: the
  // machine's.
  std::optional<uint64_t> seed;
  // The preload shim is in the program's LD_PRELOAD (--sync-points auto or processes): every
  // new image gets its control word (seccomp/hypercall_abi.h).
  bool preload_shim = false;
  // Namespaces for the tree (pid, uts, ipc, mnt); without `isolation_required` a kernel that
  // refuses them means a run without, and a notice.
  IsolationSpec isolation;
  bool isolation_required = false;
  // The namespaces' init, kept from one execution to the next by whoever runs many (a search):
  // started by the first execution that needs it, used again while it is Reusable(). Null:
  // each execution has namespaces of its own.
  IsolatedInit* shared_init = nullptr;
  // Where a search's executions are forked from, once the first one left a template there
  // (supervisor/world/fork_server.h); null: every execution starts by execve. Used only with a
  // shared init whose namespaces include pid and mnt, and only by executions nothing records
  // or observes (no log, observer, handover or stacks to take).
  ForkServer* fork_server = nullptr;
  // Where the execution's inputs from outside are recorded or replayed from (may be null).
  search::ExecutionLog* log = nullptr;
  // Sees every syscall's entry and, when the kernel runs it, its exit (--check-determinism; the
  // filter must then trap everything: seccomp::CompileFilter's observe_all). It may end the
  // execution, as a divergence.
  search::SyscallObserver* observer = nullptr;
  // Where to stop the tree and hand it over for inspection (replay --stop-at): before this
  // scheduling decision, or where the execution fails (a deadlock or hang, a fatal signal, the
  // root's exit_group with a nonzero status). `on_handover` is called with the tree stopped and
  // detached, and returns when the user is done with it; the tree is then killed.
  std::optional<uint64_t> stop_before_decision;
  bool stop_at_failure = false;
  std::function<void(const Handover&)> on_handover;
  // Whether a thread that used up its slice of CPU time gives way at its next syscall. A search
  // turns this off: where a slice ends depends on the machine, and every execution of a search
  // must take the same turns. Giving way after kSyscallBudget syscalls, which is counted, stays.
  bool slice_yields = true;
  // Wall time one execution may take; past it, it ends as `timeout` (--execution-timeout).
  std::optional<std::chrono::nanoseconds> execution_timeout;
  // Before these scheduling decisions, the stack of the thread that ran last is taken for the
  // report (where a search preempted it).
  std::set<uint64_t> backtrace_before;
  // Messages for the user (refused syscalls and the like).
  std::function<void(const std::string&)> notice;
  // Note what each call that creates, removes or renames a shared name found there
  // (ExecutionResult::names): a search compares them when an execution cannot follow another.
  bool watch_names = false;
};

// Whether an execution with these options and namespaces may make or use a fork server's
// template (supervisor_fork.cc): a recorded, observed or handed-over one runs from its execve.
bool UsesForkServer(const SupervisorOptions& options, const IsolatedInit& init);

}  // namespace chess::supervisor
