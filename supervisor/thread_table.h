// ThreadTable: every thread and process of the traced tree, and the state that decides which
// threads the scheduler may pick.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "search/scheduling_point.h"
#include "search/thread_id.h"
#include "seccomp/syscall_table.h"
#include "supervisor/registers.h"

namespace chess::supervisor {

enum class ThreadState : uint8_t {
  kRunning,   // the one thread the supervisor has resumed
  kReady,     // parked at a stop and able to continue
  kBlocked,   // waits for another thread (futex, join, vfork child), perhaps with a deadline
  kExternal,  // asleep in the kernel in a syscall the supervisor does not model
  kExiting,   // past PTRACE_EVENT_EXIT
  kDead,
};

const char* ThreadStateName(ThreadState state);

// The state letter /proc/TID/stat shows ('R', 'S', 'D', 'Z', …), or nullopt when the task is
// gone.
std::optional<char> KernelState(pid_t tid);

// True when the thread sleeps in the kernel ('S' or 'D'): it is not using the CPU.
bool AsleepInKernel(pid_t tid);

// Nanoseconds on CLOCK_MONOTONIC (the supervisor's time base for every deadline).
using MonoNanos = int64_t;

struct Process {
  pid_t tgid = 0;
  pid_t parent = 0;            // the process that reaps it (0: chess-trace itself)
  uint64_t address_space = 0;  // shared by CLONE_VM relatives; new after fork and exec
  bool dying = false;          // exit_group, a fatal signal: no thread of it runs again
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
};

// The syscall a thread is stopped in (for handlers and reports).
struct TrappedCall {
  int64_t nr = -1;
  uint64_t args[6] = {};
  seccomp::SyscallFamily family = seccomp::SyscallFamily::kFutex;
};

struct Thread {
  search::ThreadId id;
  pid_t tid = 0;
  Process* process = nullptr;
  ThreadState state = ThreadState::kReady;

  // How to resume a parked thread.
  bool at_seccomp_stop = false;       // stopped at a trapped syscall
  bool op_pending = false;            // the syscall is a deferred visible operation
  std::optional<int64_t> result;      // emulated return value to store before resuming
  int pending_signal = 0;             // signal to deliver on resume
  TrappedCall call;                   // the trapped syscall (valid while at_seccomp_stop)
  Registers regs;                     // as read at the stop: completing a call is one SETREGS
  search::SchedulingPoint point;      // where it stopped, for the strategy and reports

  // Blocking.
  std::optional<MonoNanos> deadline;  // when a timed wait or sleep ends
  int64_t deadline_result = 0;        // what the call returns then (0, -ETIMEDOUT)

  // Exit-time futex writes the kernel performs but whose wakes reach no real waiter.
  uint64_t clear_child_tid = 0;
  uint64_t robust_list = 0;
  std::vector<uint64_t> robust_futexes;  // collected at PTRACE_EVENT_EXIT
  bool called_exit = false;              // reached PTRACE_EVENT_EXIT through exit(2)

  // Thread creation in flight (set when clone executes, consumed by the CLONE event).
  uint64_t clone_flags = 0;
  uint64_t clone_child_tid = 0;
  bool in_vfork = false;

  // Blocked in wait4/waitid until a child of its process changes state; then the kernel runs
  // the call, which reaps without blocking.
  bool waits_for_child = false;
  // Blocked in a read-like call until this descriptor has something to give (or -1).
  int waits_for_input = -1;

  // Backstop interrupt bookkeeping: a PTRACE_INTERRUPT may be overtaken by another stop.
  enum class Interrupt : uint8_t { kNone, kRequested } interrupt = Interrupt::kNone;

  // The CPU mask the program asked for (sched_setaffinity is emulated while pinned).
  std::vector<uint8_t> affinity;

  bool Alive() const { return state != ThreadState::kExiting && state != ThreadState::kDead; }
};

class ThreadTable {
 public:
  Process& AddProcess(pid_t tgid, uint64_t address_space);
  Thread& AddThread(pid_t tid, Process& process);

  Thread* Find(pid_t tid);
  Thread* Find(search::ThreadId id);
  Process* FindProcess(pid_t tgid);

  // An exec by a non-leader thread: it takes over the leader's tid and every other thread of
  // the process is gone (the kernel never reports the old leader's death).
  void RenameAfterExec(Thread& thread, pid_t leader_tid);
  // A thread's kernel tid may be reused after it is reaped.
  void Forget(pid_t tid);
  // The thread is gone: it leaves the live set (its record stays for reports).
  void MarkDead(Thread& thread);

  // Threads not yet dead, in creation order.
  const std::map<uint32_t, Thread*>& Live() const { return live_; }
  const std::map<uint32_t, std::unique_ptr<Thread>>& All() const { return by_id_; }
  const std::map<pid_t, std::unique_ptr<Process>>& Processes() const { return processes_; }
  size_t ThreadsCreated() const { return next_id_; }
  uint64_t NewAddressSpace() { return ++address_spaces_; }

 private:
  std::map<uint32_t, std::unique_ptr<Thread>> by_id_;
  std::map<pid_t, Thread*> by_tid_;
  std::map<uint32_t, Thread*> live_;
  std::map<pid_t, std::unique_ptr<Process>> processes_;
  uint32_t next_id_ = 0;
  uint64_t address_spaces_ = 0;
};

}  // namespace chess::supervisor
