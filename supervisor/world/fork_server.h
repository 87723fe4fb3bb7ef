// ForkServer: starts a search's executions by forking, not by execve (design §4).
//
// Every execution of a search begins the same way: the execve, the dynamic loader, the
// program's start-up until its first clone. That prefix costs more than a small program's whole
// concurrent part. The first execution that reaches its first clone with one thread, having
// done only what a copy of the process would repeat exactly (see Supervisor::WhyNotForkable),
// leaves a template behind: a copy of its process, forked at that clone's seccomp stop and kept
// stopped there. Each later execution is forked from the template, rewound onto that clone, and
// the supervisor carries on from what it knew at that point (PrefixState), after playing the
// prefix's strategy calls into the new execution's strategy.
//
// What a fork would not give the new process is given to it: its own tid where glibc keeps it
// (CLONE_CHILD_SETTID), its robust-futex list (set_robust_list, injected), fresh SysV IPC and UTS
// namespaces (CLONE_NEWIPC | CLONE_NEWUTS), and standard descriptors as the template had them
// (the input's offset, the prefix's captured output), and with --isolate …,cwd the working
// directory mounted for it (a chdir, injected). The template lives in the search's
// namespaces (a pid namespace with its own /proc): its pid is out of the way, every execution's
// program is pid 2 as an exec'd one is, and emptying the namespace spares it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "search/result.h"
#include "search/strategy_tape.h"
#include "supervisor/execution_state.h"
#include "supervisor/world/isolation.h"
#include "supervisor/ptrace/registers.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// What the supervisor knew at the template point: an execution forked from the template starts
// from this instead of from nothing.
struct PrefixState {
  search::StrategyTape tape;  // every strategy call of the prefix, with its answer
  Process process;            // the root process, as kept then (its ids are replaced)
  Thread thread;              // its one thread (ids and process replaced)
  uint64_t address_spaces = 0;
  std::optional<int64_t> virtual_elapsed;  // virtual time, when time is virtual
  bool ran_before = false;  // a thread had run before (the point of a decision's `current`)
  ExecutionState execution;
};

// The calls the fork server injects, for the supervisor to check against the program's own
// seccomp filters first (sandbox.h). At the template point's seccomp stop `at` (the root's
// first clone), the clone that forks a process in its place: the filters judge it when the
// stop ends, as a changed call.
Registers TemplateCloneCall(const Registers& at, uint64_t child_tid, int fresh);
// In a process just forked from the template, rewound onto that clone (`rewound`): the
// set_robust_list that gives it the template's robust list, made afresh.
Registers RobustListCall(const Registers& rewound, uint64_t robust_list);
// …and, with a private working directory (--isolate …,cwd), the chdir into this execution's,
// its name at `path_address`, made afresh.
Registers EnterDirectoryCall(const Registers& rewound, uint64_t path_address);

class ForkServer {
 public:
  ForkServer() = default;
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;
  ~ForkServer();

  // Whether making a template was tried already: one try per search.
  bool Tried() const { return tried_; }
  // No template is made in this search, for this reason (the first execution's prefix could
  // not be forked); ends the tries.
  void Decline(std::string why) {
    tried_ = true;
    unused_ = std::move(why);
  }
  // Why executions are not (or no longer) forked, when a template was tried and is not there.
  const std::string& Unused() const { return unused_; }
  // Whether there is a template to fork, in namespaces that are still there.
  bool Ready(const IsolatedInit& init) const;

  // Makes the template from `root`, the one thread of the program, stopped at the seccomp stop
  // of its first clone with registers `at`. `thread` is the supervisor's record of it (its
  // set_tid_address and robust list); `fresh` the namespaces (CLONE_NEWIPC, CLONE_NEWUTS) each
  // program gets new. However it ends, `root` is left stopped at that seccomp stop again, as it
  // was — unless it died meanwhile, which its next event says.
  Result<void> Make(pid_t root, const Registers& at, const Thread& thread, int fresh, IsolatedInit& init,
                    PrefixState prefix);

  struct Forked {
    pid_t pid = 0;          // as chess-trace sees it
    pid_t program_pid = 0;  // as the program sees it
  };
  // A new process forked from the template, stopped and rewound onto the template's clone:
  // resumed, it makes that call, and its supervisor goes on from Prefix(). On failure the
  // template is discarded (the caller then starts the execution by execve).
  Result<Forked> Fork();
  const PrefixState& Prefix() const { return prefix_; }

  // Kills the template; later executions start by execve.
  void Discard();

 private:
  // One of the template's standard descriptors, held through pidfd_getfd, and what it must be
  // set back to before each fork.
  struct Standard {
    int fd = -1;            // chess-trace's copy (the same open file), or -1: closed or stateless
    off_t offset = -1;      // an input file's offset
    std::string written;    // an output capture's content (the prefix's output)
  };
  Result<void> HoldStandardDescriptors();
  bool RestoreStandardDescriptors();

  bool tried_ = false;
  std::string unused_;
  pid_t template_ = 0;
  int pidfd_ = -1;  // the template's: it is killed through this, never by a pid reused since
  IsolatedInit* init_ = nullptr;
  uint64_t generation_ = 0;
  Registers rewound_;      // the template's registers, on its clone's `syscall` instruction
  Registers at_;           // …and as at its seccomp stop
  uint64_t child_tid_ = 0;  // where glibc keeps the tid (set_tid_address), or 0
  uint64_t robust_list_ = 0;
  int fresh_ = 0;
  std::string enter_;  // the private working directory each forked execution enters, or empty
  Standard standard_[3];
  PrefixState prefix_;
};

}  // namespace chess::supervisor
