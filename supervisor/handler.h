// The contract between the event loop and the syscall handlers: a handler sees one trapped
// syscall through a SyscallContext and answers with a Disposition. Handlers never call ptrace;
// the loop applies what they decide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/outcome.h"
#include "search/scheduling_point.h"
#include "supervisor/clock.h"
#include "supervisor/futex_table.h"
#include "supervisor/remote_memory.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

struct Disposition {
  enum class Kind : uint8_t {
    kComplete,  // emulated: store `value` as the result; the thread keeps running
    kNative,    // the kernel runs the syscall; the thread keeps running
    kPoint,     // a visible operation: the thread parks; the op runs when it is picked
    kBlock,     // the thread now waits (its queue entry and deadline are already recorded)
    kYield,     // emulated with `value`; the thread asks to let others run
  };
  Kind kind = Kind::kNative;
  int64_t value = 0;
  bool registers_changed = false;  // kNative: the handler edited thread.regs; store them first
  search::OpKind op = search::OpKind::kSyscall;
  uint64_t resource = 0;
  bool is_write = false;
  bool is_release = false;

  static Disposition Complete(int64_t value) { return {Kind::kComplete, value}; }
  static Disposition Native() { return {Kind::kNative}; }
  static Disposition NativeWithRegisters() {
    Disposition d{Kind::kNative};
    d.registers_changed = true;
    return d;
  }
  static Disposition Block() { return {Kind::kBlock}; }
  static Disposition Yield(int64_t value) { return {Kind::kYield, value}; }
  static Disposition Point(search::OpKind op, uint64_t resource, bool is_write = false,
                           bool is_release = false) {
    Disposition d{Kind::kPoint};
    d.op = op;
    d.resource = resource;
    d.is_write = is_write;
    d.is_release = is_release;
    return d;
  }
};

// What handlers may do besides reading their own thread.
class HandlerServices {
 public:
  virtual ~HandlerServices() = default;
  // A blocked thread becomes ready; its syscall returns `result`.
  virtual void Wake(Thread& thread, int64_t result) = 0;
  virtual ThreadTable& Threads() = 0;
  virtual FutexTable& Futexes() = 0;
  virtual const Clock& Time() = 0;
  // A message for the user, printed once per distinct text.
  virtual void Notice(const std::string& text) = 0;
  // A signal may now be pending for `pid` (a process, or with `thread` a single thread; 0: any
  // task): a thread parked in an emulated wait must leave it so the kernel can deliver it.
  virtual void SignalSent(pid_t pid, bool thread) = 0;
  // Whether `fd` of the thread's process would make a read return now (data, EOF, an error, a
  // connection to accept); nullopt when that cannot be told (the call then runs natively).
  virtual std::optional<bool> InputReady(const Thread& thread, int fd) = 0;
  // Ends the execution now with `outcome` (a limit the user set was exceeded).
  virtual void Stop(search::Outcome outcome, const std::string& message) = 0;
  // How many more processes the tree may create, and the limit (--max-processes).
  virtual size_t ProcessesAllowed() = 0;
  virtual size_t MaxProcesses() = 0;
  // The CPU mask the program must see (the machine's, not the supervisor's pinning), or empty
  // when the tree is not pinned and affinity calls run natively.
  virtual const std::vector<uint8_t>& VisibleAffinity() = 0;
};

struct SyscallContext {
  Thread& thread;
  HandlerServices& services;

  uint64_t Arg(int i) const { return thread.call.args[i]; }
  RemoteMemory Memory() const { return RemoteMemory(thread.tid); }

  // Records that the caller waits, until woken or until `deadline` (then it returns
  // `timeout_result`).
  Disposition BlockUntil(std::optional<MonoNanos> deadline, int64_t timeout_result) {
    thread.deadline = deadline;
    thread.deadline_result = timeout_result;
    return Disposition::Block();
  }
};

// One entry per syscall family; `execute` runs a deferred visible operation (kPoint) once the
// scheduler picks the thread, and may itself answer kBlock.
struct FamilyHandler {
  Disposition (*on_entry)(SyscallContext&);
  Disposition (*execute)(SyscallContext&);
};

// The `execute` half of families whose entry never answers kPoint.
Disposition NoDeferredOperation(SyscallContext& context);

FamilyHandler FutexHandler();
FamilyHandler CloneHandler();
FamilyHandler ExitHandler();
FamilyHandler ExecHandler();
FamilyHandler ThreadSetupHandler();
FamilyHandler YieldHandler();
FamilyHandler SleepHandler();
FamilyHandler AffinityHandler();
FamilyHandler RefusedHandler();
FamilyHandler HypercallHandler();
FamilyHandler WaitHandler();
FamilyHandler SignalHandler();
FamilyHandler InputHandler();

}  // namespace chess::supervisor
