// The contract between the event loop and the syscall handlers: a handler sees one trapped
// syscall through a SyscallContext and answers with a Disposition at its entry, or with the
// answer type of a later hook (ExecuteAnswer, ExitAnswer, TimeoutAnswer, SignalAnswer), which
// holds only what is legal there. Handlers never call ptrace; the loop applies what they decide.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <string>
#include <vector>

#include "search/outcome.h"
#include "search/random.h"
#include "search/scheduling_point.h"
#include "seccomp/syscall_family.h"
#include "supervisor/clock.h"
#include "supervisor/fd_probe.h"
#include "supervisor/handlers/futex_table.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

struct Disposition {
  enum class Kind : uint8_t {
    kComplete,  // emulated: store `value` as the result; the thread keeps running
    kNative,    // the kernel runs the syscall; the thread keeps running
    kPoint,     // a visible operation: the thread parks; the op runs when it is picked
    kBlock,     // the thread now waits (its queue entry and deadline are already recorded)
    kYield,     // emulated with `value` (or run by the kernel); the thread lets others run first
    kNativeThenExit,  // the kernel runs the syscall; the handler's on_exit sees its result
  };
  Kind kind = Kind::kNative;
  int64_t value = 0;
  bool registers_changed = false;  // kNative: the handler edited thread.regs; store them first
  bool native = false;             // kYield: no emulated value, the kernel runs the call
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
  static Disposition NativeThenExit() { return {Kind::kNativeThenExit}; }
  static Disposition Block() { return {Kind::kBlock}; }
  static Disposition Yield(int64_t value) { return {Kind::kYield, value}; }
  // Lets others run first, then the kernel runs the call (a poll with a zero timeout).
  static Disposition YieldThenNative() {
    Disposition d{Kind::kYield};
    d.native = true;
    return d;
  }
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

// The answers of the later hooks. Each holds only what is legal at its hook, so a handler that
// answers anything else does not compile, and the loop switches over exactly that set. The
// kinds a later hook shares with an entry carry Disposition's values: the answers that are also
// legal at entry (those of `execute` and `on_signal`, whose logic an entry reuses) convert.
// The value comes first: an answer fits in the two registers a function returns it in.
#define CHESS_DISPOSITION_KIND(name) name = static_cast<uint8_t>(Disposition::Kind::name)

// What the answers of `execute`, `on_exit` and `on_timeout` share: the call returns `value`
// (kComplete), or the kernel runs it (kNative), with the thread's registers stored first when the
// handler edited them. Each answer is a type of its own over its own set of kinds — `Answer`, the
// answer itself — so one hook's answer is never taken for another's.
template <typename Answer, typename Kinds>
struct HookAnswer {
  using Kind = Kinds;
  int64_t value = 0;
  Kind kind = Kind::kNative;
  bool registers_changed = false;  // kNative: the handler edited thread.regs; store them first

  static Answer Complete(int64_t value) { return Of(Kind::kComplete, value); }
  static Answer Native() { return Of(Kind::kNative); }
  static Answer NativeWithRegisters() { return Of(Kind::kNative, 0, true); }

 protected:
  static Answer Of(Kind kind, int64_t value = 0, bool registers_changed = false) {
    Answer answer;
    answer.value = value;
    answer.kind = kind;
    answer.registers_changed = registers_changed;
    return answer;
  }
};

// `execute`, when the scheduler picks a thread parked at its point: the operation returns, goes
// to the kernel, or turns out to wait — never another point or a yield.
enum class ExecuteKind : uint8_t {
  CHESS_DISPOSITION_KIND(kComplete),
  CHESS_DISPOSITION_KIND(kNative),
  CHESS_DISPOSITION_KIND(kNativeThenExit),
  CHESS_DISPOSITION_KIND(kBlock),
};
struct ExecuteAnswer : HookAnswer<ExecuteAnswer, ExecuteKind> {
  static ExecuteAnswer NativeThenExit() { return Of(Kind::kNativeThenExit); }
  static ExecuteAnswer Block() { return Of(Kind::kBlock); }
  operator Disposition() const { return {static_cast<Disposition::Kind>(kind), value, registers_changed}; }
};

// `on_exit`, at the syscall-exit stop a kNativeThenExit asked for.
enum class ExitKind : uint8_t {
  kComplete,    // the call returns `value`
  kNative,      // the call returns what the kernel answered
  kStayInside,  // the thread stays inside the call, disabled until its wait (recorded) is
                // over: its registers were rewound to re-enter the call then
};
struct ExitAnswer : HookAnswer<ExitAnswer, ExitKind> {
  static ExitAnswer StayInside() { return Of(Kind::kStayInside); }
};

// `on_timeout`, when a blocked thread's deadline passes: the call returns `value`, or the
// kernel runs it, changed so that it returns at once.
enum class TimeoutKind : uint8_t { kComplete, kNative };
struct TimeoutAnswer : HookAnswer<TimeoutAnswer, TimeoutKind> {};

// `on_signal`, when a signal ends a thread's emulated wait at its entry: the call returns
// `value` (the signal is taken as the thread leaves it), or the kernel runs the call and
// applies its own rules — and with kNativeThenExit stops at its exit, where `on_exit` looks.
struct SignalAnswer {
  enum class Kind : uint8_t {
    CHESS_DISPOSITION_KIND(kComplete),
    CHESS_DISPOSITION_KIND(kNative),
    CHESS_DISPOSITION_KIND(kNativeThenExit),
  };
  int64_t value = 0;
  Kind kind = Kind::kNative;

  static SignalAnswer Complete(int64_t value) { return {.value = value, .kind = Kind::kComplete}; }
  static SignalAnswer Native() { return {.kind = Kind::kNative}; }
  static SignalAnswer NativeThenExit() { return {.kind = Kind::kNativeThenExit}; }
  operator Disposition() const { return {static_cast<Disposition::Kind>(kind), value}; }
};

#undef CHESS_DISPOSITION_KIND

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
  // The calling thread's call is refused: it gets `error`, for the reason `why`. Kept in the
  // execution's result (a failure after it is `unsupported`) and said once as a notice.
  virtual void Refuse(const Thread& thread, const std::string& call, int error, const std::string& why) = 0;
  // A signal may now be pending for `pid` (a process, or with `thread` a single thread; 0: any
  // task), as `sender` names it (its pid namespace's numbers): a thread parked in an emulated
  // wait must leave it so the kernel can deliver it.
  virtual void SignalSent(pid_t pid, bool thread, const Process& sender) = 0;
  // Whether a SIGCONT or SIGKILL of `sender` for `pid` (as it names it; 0 or less: any) would
  // change a process of the tree at once, without any thread of it being picked: a stopped
  // process continues, a killed one dies. Those changes are then waited for (SettleSignalled).
  virtual bool SignalActsAtOnce(pid_t pid, bool thread, int signal, const Process& sender) = 0;
  // The kernel has sent such a signal: its effects are collected now, before anyone else runs,
  // so that whether a parent's wait sees them never depends on when the kernel reports them.
  virtual void SettleSignalled(pid_t pid, bool thread, int signal, const Process& sender) = 0;
  // The thread's descriptors, looked at without touching them.
  virtual FdProbe& Fds() = 0;
  // Whether chess-trace sees the program's SysV IPC objects (it could enter their namespace).
  virtual bool IpcVisible() = 0;
  // The run's seeded randomness, or nullptr when the program gets the machine's.
  virtual search::SeededRandom* Random() = 0;
  // Virtual time moves by `nanos` (a clock read); nothing happens with real time.
  virtual void AdvanceTime(int64_t nanos) = 0;
  // The program's CLOCK_REALTIME reads `nanos` from now on (a privileged program set it); its
  // monotonic clocks go on. Only with virtual time: the host's clock is never set.
  virtual void SetRealtime(int64_t nanos) = 0;
  // Whether reads, writes and polls of pipes and sockets are scheduling points (a search wants
  // them; a single faithful run does not need to stop there).
  virtual bool IoPoints() = 0;
  // Whether an operation on `file` (a copy of the program's descriptor) is such a point: I/O
  // points are on and the file is not one the tree was started with. Those — the terminal, the
  // pipe to whoever started chess-trace, the captured output — have their other end outside,
  // and whether they are pipes differs between a search and a replay.
  virtual bool IoPointOn(const FdCopy& file) = 0;
  // The thread's call is about to create, remove or rename a name other processes see (a file,
  // a directory, a socket path): what is there now is noted when a search watches names
  // (SupervisorOptions::watch_names), to explain why a later execution could not follow this one.
  virtual void NoteSharedNames(const Thread& thread) = 0;
  // Ends the execution now with `outcome` (a limit the user set was exceeded).
  virtual void Stop(search::Outcome outcome, const std::string& message) = 0;
  // How many more processes the tree may create, and the limit (--max-processes).
  virtual size_t ProcessesAllowed() = 0;
  virtual size_t MaxProcesses() = 0;
  // The CPU mask the program must see (the machine's, not the supervisor's pinning), or empty
  // when the tree is not pinned and affinity calls run natively.
  virtual const std::vector<uint8_t>& VisibleAffinity() = 0;
  // The kernel installed `program` as a seccomp filter of the thread's own (of all its
  // process's threads with `all_threads`, SECCOMP_FILTER_FLAG_TSYNC).
  virtual void FilterInstalled(Thread& thread, std::vector<sock_filter> program, bool all_threads) = 0;
  // A request of the program's own tracer on `tracee`, in an emulated ptrace-stop, that the
  // kernel carries out on the supervisor's stop (FP and debug registers, register sets): the raw
  // call's answer, 0 or -errno, with `data` in the supervisor's memory. The tracee's registers
  // as the supervisor keeps them are stored before and read again after.
  virtual long TraceeRequest(Thread& tracee, int64_t request, uint64_t addr, void* data) = 0;
  // PTRACE_INTERRUPT of a seized tracee in no ptrace-stop (it stops for its tracer now, or when
  // the kernel's trap comes), and PTRACE_LISTEN of one in an event stop (false: EIO).
  virtual void InterruptTracee(Thread& tracee) = 0;
  // The thread's process made [begin, end) executable (an mmap or mprotect with PROT_EXEC that
  // succeeded): with atomic points, the breakpoints of the code there are planted now, before
  // any of it runs. The thread is at the call's exit stop, with its registers in thread.regs;
  // true when they must be stored again before it goes on (a call was injected meanwhile).
  virtual bool CodeMapped(Thread& thread, uint64_t begin, uint64_t end) = 0;
  virtual bool ListenTracee(Thread& tracee) = 0;
};

struct SyscallContext {
  Thread& thread;
  HandlerServices& services;
  // restart_syscall: the wait a signal interrupted goes on until the deadline it had.
  std::optional<MonoNanos> deadline_override = std::nullopt;

  uint64_t Arg(int i) const { return thread.call.args[i]; }
  RemoteMemory Memory() const { return RemoteMemory(thread.tid); }
  FdCopy CopyFd(int fd) const { return services.Fds().Copy(thread.process->tgid, fd); }

  // Whether the thread's own seccomp filters let the kernel run its call with the number and
  // arguments of `changed` instead of its own: they judge it again when the thread leaves this
  // seccomp stop (sandbox.h). With none, they do.
  bool FiltersPermitChange(const Registers& changed) const;
  // Whether they let the thread make the call of `changed`, rewound onto its `syscall`
  // instruction, afresh: then only an ALLOW (or LOG) lets chess-trace's filter see it.
  bool FiltersPermitReentry(const Registers& changed) const;

  // Records what the caller waits for: it is disabled until woken or until the wait's deadline
  // (then it returns the wait's timeout_result, or the family's on_timeout decides). An answer
  // of `execute`, and so of an entry too.
  ExecuteAnswer BlockUntil(Wait wait) {
    thread.wait = std::move(wait);
    return ExecuteAnswer::Block();
  }
  // The call waits on descriptors, which are ready now or not (`ready_now`). With scheduling
  // points at I/O the thread parks at a point and its deferred operation (RunWhenFdsReady)
  // looks again when it is picked; otherwise the kernel runs a ready call at once, and a call
  // that is not ready leaves the thread disabled until the descriptors are, or `deadline`.
  Disposition WaitOnFds(IoWait wait, bool ready_now, std::optional<MonoNanos> deadline = std::nullopt,
                        int64_t timeout_result = 0, uint64_t resource = 0, bool is_write = false) {
    // A read or a write holds the copy of its descriptor already; a poll's are made here.
    bool point = false;
    for (const FdCopy& file : wait.held) point = point || services.IoPointOn(file);
    if (wait.held.empty() && services.IoPoints()) {
      for (const FdInterest& interest : wait.fds) {
        point = point || services.IoPointOn(services.Fds().Copy(thread.process->tgid, interest.fd));
      }
    }
    if (!point && ready_now) return Disposition::Native();
    thread.wait = Wait{std::move(wait), deadline, timeout_result};
    if (point) return Disposition::Point(search::OpKind::kIo, resource, is_write);
    return Disposition::Block();
  }
};

// Whether the descriptors of `wait` are ready now: any of them, or all with needs_all.
bool IoWaitReady(FdProbe& probe, pid_t tgid, const IoWait& wait);

// The deferred half of a call that waits on descriptors (see WaitOnFds): the kernel runs it if
// they are ready now; otherwise the thread is disabled until they are, or its deadline.
ExecuteAnswer RunWhenFdsReady(SyscallContext& ctx);

// The `execute` half of families whose entry never answers kPoint.
ExecuteAnswer NoDeferredOperation(SyscallContext& context);

// One entry per syscall family; each hook answers with its own type (above). `execute` runs a
// deferred visible operation (kPoint) once the scheduler picks the thread. `on_exit` runs at
// the syscall-exit stop a kNativeThenExit asked for. `on_timeout` runs when a blocked thread's
// deadline passes; without it the call returns the wait's timeout_result. `ready` tells whether
// a thread that waits for an object (an ObjectWait) could go on now; its `execute` then runs
// again. `on_signal` runs when a signal ends the thread's emulated wait (`handled`: a handler
// will run for it); without it the kernel runs the call and applies its own rules.
struct FamilyHandler {
  Disposition (*on_entry)(SyscallContext&);
  ExecuteAnswer (*execute)(SyscallContext&) = NoDeferredOperation;
  ExitAnswer (*on_exit)(SyscallContext&) = nullptr;
  TimeoutAnswer (*on_timeout)(SyscallContext&) = nullptr;
  bool (*ready)(SyscallContext&) = nullptr;
  SignalAnswer (*on_signal)(SyscallContext&, bool handled) = nullptr;
};

// Which changes of a child a wait4/waitid collects (its options).
struct Changes {
  bool exit = true;
  bool stop = false;
  bool resume = false;
  bool Collects(Process::JobChange change) const {
    return (change == Process::JobChange::kStopped && stop) || (change == Process::JobChange::kContinued && resume);
  }
};
Changes WantedChanges(bool is_wait4, uint64_t options);

// An emulated tracee leaves its ptrace-stop (its tracer's PTRACE_CONT, DETACH, or death): it can
// be scheduled again, and resumes with `signal` (0: none) when a signal-delivery-stop's.
void LeaveTraceStop(Thread& tracee, int signal,
                    EmulatedTracee::Resumption how = EmulatedTracee::Resumption::kContinue);

// The handler of a family.
FamilyHandler HandlerFor(seccomp::SyscallFamily family);

// Each family's handler, defined in handlers/<family>.cc: FutexHandler(), CloneHandler(), …
#define CHESS_FAMILY_HANDLER_DECLARATION(Name, ...) FamilyHandler Name##Handler();
CHESS_SYSCALL_FAMILIES(CHESS_FAMILY_HANDLER_DECLARATION)
#undef CHESS_FAMILY_HANDLER_DECLARATION

// A siginfo the kernel wrote for a signal taken synchronously (sigtimedwait): a POSIX timer's
// gets its overrun count, as the kernel gives it at delivery.
void TimerSignalTakenByWait(SyscallContext& context, uint64_t info_address);

// A read of /dev/urandom or /dev/random, answered from the run's seeded randomness.
Disposition ReadRandomDevice(SyscallContext& context);

}  // namespace chess::supervisor
