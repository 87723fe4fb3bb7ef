// ThreadTable: every thread and process of the traced tree, and the state that decides which
// threads the scheduler may pick.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "search/scheduling_point.h"
#include "search/thread_id.h"
#include "seccomp/bpf_interpreter.h"
#include "seccomp/syscall_table.h"
#include "supervisor/fd_probe.h"
#include "supervisor/forced_signal.h"
#include "supervisor/handlers/emulated_tracee.h"
#include "supervisor/program_images.h"
#include "supervisor/ptrace/registers.h"

namespace chess::supervisor {

// Nanoseconds on CLOCK_MONOTONIC (the supervisor's time base for every deadline).
using MonoNanos = int64_t;

enum class ThreadState : uint8_t {
  kRunning,   // the one thread the supervisor has resumed
  kReady,     // parked at a stop and able to continue
  kBlocked,   // waits for another thread (futex, join, vfork child), perhaps with a deadline
  kExternal,  // asleep in the kernel in a syscall the supervisor does not model
  kStopped,   // in a job-control stop (SIGSTOP, SIGTSTP…) until a SIGCONT
  kExiting,   // past PTRACE_EVENT_EXIT
  kDead,
};

const char* ThreadStateName(ThreadState state);

// The state letter /proc/TID/stat shows ('R', 'S', 'D', 'Z', …), or nullopt when the task is
// gone.
std::optional<char> KernelState(pid_t tid);

// True when the thread sleeps in the kernel ('S' or 'D'): it is not using the CPU.
bool AsleepInKernel(pid_t tid);
// Whether process `tgid` is pid 1 of its own pid namespace (one the program made): its
// namespace's init, immune to signals it does not catch, and its namespace's end when it exits.
bool IsPidNamespaceInit(pid_t tgid);


// A timer kept in virtual time: alarm/setitimer(ITIMER_REAL), a POSIX timer, or a timerfd
// (whose kernel timer stays disarmed until its virtual expiry).
struct VirtualTimer {
  std::optional<MonoNanos> expires;  // disarmed when empty
  int64_t interval = 0;              // nanoseconds; 0: one-shot
  // What an expiry does: a signal (alarm, POSIX timers), or arming the timerfd.
  int signal = 0;
  pid_t thread = 0;       // SIGEV_THREAD_ID: the one thread to signal
  uint64_t value = 0;     // sigev_value, passed in the signal's si_value
  int overrun = 0;        // expiries while the previous signal was still pending
  int delivered_overrun = 0;  // the overrun the last delivered signal carried (timer_getoverrun)
  int id = -1;            // a POSIX timer's id (si_timerid)
};

struct Process {
  pid_t tgid = 0;
  pid_t program_pid = 0;       // the pid the program sees (another one in a pid namespace)
  // Its pid in each pid namespace from the root process's down to its own (the last is
  // program_pid): a program that makes pid namespaces of its own sees other ids in each.
  std::vector<pid_t> ns_pids;
  pid_t parent = 0;            // the process that reaps it (0: chess-trace itself)
  uint64_t address_space = 0;  // shared by CLONE_VM relatives; new after fork and exec
  bool dying = false;          // exit_group, a fatal signal: no thread of it runs again
  pid_t vfork_parent = 0;      // the thread asleep in vfork until this child execs or exits
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  int64_t dead_threads_cpu_nanos = 0;  // virtual CPU time of its threads that are gone
  // Virtual-time timers: ITIMER_REAL (alarm), POSIX timers by id, timerfds by descriptor.
  VirtualTimer alarm;
  std::map<int, VirtualTimer> posix_timers;
  std::map<int, VirtualTimer> timerfds;
  // A job-control change its parent has not collected yet: wait4(WUNTRACED) reports a stop,
  // WCONTINUED a continue.
  enum class JobChange : uint8_t { kNone, kStopped, kContinued } job_change = JobChange::kNone;
  // SIGCHLDs the supervisor queued for its emulated tracees' stops (emulated_tracing.cc), which
  // show CLD_TRAPPED when taken.
  int tracee_notices = 0;
  size_t image = ProgramImages::kNone;  // what it runs: the supervisor's ProgramImages index
  bool focused = false;                 // it runs a program --focus names
  // Where the preload shim reads how to announce (seccomp/hypercall_abi.h: the control word
  // chess-trace put in its auxiliary vector at exec), or 0: no shim control in this image.
  uint64_t shim_control = 0;

  // `info` is a signal a thread of the process is taking: a POSIX timer's carries the expiries
  // it stood for (its overrun count), as the kernel gives them at delivery. False when it is not
  // a timer's signal.
  bool TakeTimerSignal(siginfo_t& info);
};

// A descriptor a blocked thread waits on, with the poll(2) events that would let it continue.
struct FdInterest {
  int fd = -1;
  short events = 0;
};

// A thread that waits for signals (pause, sigsuspend, sigtimedwait, a ppoll of nothing): which
// signals end the wait.
struct SignalWait {
  std::optional<uint64_t> mask;  // blocked during the call, instead of the thread's mask
  uint64_t awaited = 0;          // rt_sigtimedwait's set: taken even while blocked
};

// A thread disabled until descriptors are ready (a read of an empty pipe, a poll, a write to a
// full pipe). Checked before every decision with poll(…, 0) on copies of the descriptors; once
// ready, the thread's operation runs again when it is picked, and looks again.
struct IoWait {
  std::vector<FdInterest> fds;
  bool needs_all = false;  // splice: the input readable and the output writable
  // For a read or a write: the copy of its descriptor, held while it waits — the blocked call
  // would hold the file too — so one poll() checks every such waiter at once. A poll or select
  // does not hold its descriptors while it sleeps (another thread may close one to end it), so
  // those are copied afresh each time.
  std::vector<FdCopy> held{};
  // ppoll, pselect6, epoll_pwait: blocked during the call instead of the thread's mask (which
  // signals end the wait, as for a SignalWait). The signals its signalfds watch are not kept
  // here: they are read when looked for (SignalfdSignals, handlers/pending_signals.h).
  std::optional<uint64_t> signal_mask{};
};

// The other things a thread waits for. Each kind says who ends the wait; a wake, a deadline or
// a signal for the thread ends any.
struct SleepWait {};      // nothing but its deadline (a sleep, a poll of no descriptor)
struct FutexWordWait {};  // a wake of its futex word: its entry in the FutexTable
struct ObjectWait {       // a kernel object that cannot be polled (a file lock, a SysV semaphore):
  bool slept = false;     // its family's `ready` looks, and its operation runs again; `slept`: it
};                        // found it must wait, and so sleeps on the object (its removal ends that)
struct ChildWait {};      // wait4/waitid: a child of its process changes state; then the kernel
                          // runs the call, which reaps without blocking
struct TraceStopWait {};  // a ptrace-stop of the program's own tracer (Thread::traced): its
                          // PTRACE_CONT, DETACH or death ends it
struct KernelSleep {};    // asleep in the kernel in a call chess-trace does not model (a FIFO's
                          // open), its exit stop armed: the kernel's wake-up ends it

// What a thread's call waits for, recorded by its handler when it blocks (or, for a deferred
// operation, when it parks at its point). It ends — Thread::wait.reset() — when the thread
// goes on: woken, timed out, released to the kernel, or making its next call.
struct Wait {
  std::variant<SleepWait, FutexWordWait, IoWait, ObjectWait, ChildWait, SignalWait, TraceStopWait, KernelSleep> on;
  std::optional<MonoNanos> deadline = std::nullopt;  // when it ends anyway
  int64_t timeout_result = 0;         // what the call returns then (0, -ETIMEDOUT), unless its
                                      // family's on_timeout decides

  template <typename Kind>
  bool Is() const { return std::holds_alternative<Kind>(on); }
  IoWait* Io() { return std::get_if<IoWait>(&on); }
  const IoWait* Io() const { return std::get_if<IoWait>(&on); }
  // Which signals end the wait besides those the thread's mask lets through, when the call
  // waits under a mask of its own or for signals it takes while blocked.
  std::optional<SignalWait> Signals() const;
};

// The syscall a thread is stopped in (for handlers and reports).
struct TrappedCall {
  int64_t nr = -1;
  uint64_t args[6] = {};
  seccomp::SyscallFamily family = seccomp::SyscallFamily::kFutex;
  // How it was trapped: by chess-trace's seccomp filter, or as the preload shim's hypercall
  // trap (an int3, seccomp/hypercall_abi.h) — then `nr` names the hypercall, and completing it
  // skips the trap's marker.
  enum class Trap : uint8_t { kSeccomp, kHypercall } trap = Trap::kSeccomp;
};

// Where a thread stands in its trapped syscall, and so what Supervisor::Resume does to let it
// go. The legal transitions (Resume is the only way out of a call's stop):
//
//   seccomp stop ──► kEntry ── Resume: the result stored, or the kernel runs the call ──► kNone
//   seccomp stop, a fairness yield ──► kEntryPutOff ── picked: its handler runs ──► kEntry
//   kEntry ── handler: a point; a waiter found ready ──► kOperationPending ── picked: execute ──► kEntry
//   kEntry ── Resume with to_exit ──► kInside ── syscall-exit stop: on_exit ──► kExit
//   kEntry ── Resume under an observer ──► kInsideObserved ── syscall-exit stop ──► kExit
//   kExit ── on_exit: it stays inside, parked in the call, its registers rewound ──► kExit
//   kExit ── Resume ──► kNone
//   an interrupt finds it asleep in the kernel ──► kReentering ── its entry stop ──► kAsleepInside
//   kAsleepInside ── the kernel wakes it: its exit stop ──► kExit
//
// An interrupt, a group stop or a hang ends whatever stop it was (kNone): the thread is then
// stopped in no call of its own.
struct ParkedCall {
  enum class At : uint8_t {
    kNone,             // in no trapped call: running its own code, or stopped outside a call
    kEntryPutOff,      // at the seccomp stop; its handler runs when the thread is picked
    kEntry,            // at the seccomp stop; its handler has answered
    kOperationPending, // at the seccomp stop; its deferred operation runs when it is picked
    kInside,           // resumed into the kernel, which stops it at the call's exit (on_exit)
    kInsideObserved,   // resumed into the kernel; the exit stop is the observer's alone
    kExit,             // at the syscall-exit stop; its handler's on_exit has answered
    // A sleep in the kernel the scheduler accounts for (kernel_sleep.cc): interrupted asleep in
    // a call, it makes the call again with its exit stop armed and sleeps there, disabled.
    kReentering,       // resumed to make the call again: its syscall-entry stop comes next
    kAsleepInside,     // in the call again, asleep; its exit stop comes when the kernel wakes it
  };
  At at = At::kNone;
  // The emulated return value stored as the thread resumes (the kernel then skips the call).
  std::optional<int64_t> result;
  // Thread::regs were changed while parked: stored before the thread resumes.
  bool registers_dirty = false;
  // At kEntry: the kernel runs the call and stops at its exit (its handler's on_exit).
  bool to_exit = false;

  // At the seccomp stop of the call (the kernel has not run it).
  bool AtEntry() const { return at == At::kEntryPutOff || at == At::kEntry || at == At::kOperationPending; }
  // At a stop of the call, its entry or its exit.
  bool AtStop() const { return AtEntry() || at == At::kExit; }
  // Asleep in the kernel in a call the scheduler accounts for (kernel_sleep.cc), or on its way.
  bool InKernelSleep() const { return at == At::kReentering || at == At::kAsleepInside; }
  // Nothing to store or to ask for as the thread resumes.
  bool Plain() const { return !result && !registers_dirty && !to_exit; }
};

const char* ParkedAtName(ParkedCall::At at);

struct Thread {
  search::ThreadId id;
  pid_t tid = 0;
  pid_t program_tid = 0;  // the tid the program sees (another one in a pid namespace)
  std::vector<pid_t> ns_tids;  // as Process::ns_pids: its tid in each pid namespace
  Process* process = nullptr;
  ThreadState state = ThreadState::kReady;

  // How to resume a parked thread.
  ParkedCall parked;
  int pending_signal = 0;             // signal to deliver on resume
  TrappedCall call;                   // the trapped syscall (valid while parked.AtEntry())
  Registers regs;                     // as read at the stop: completing a call is one SETREGS
  search::SchedulingPoint point;      // where it stopped, for the strategy and reports
  // Trapped syscalls it has made (the current one included): where a thread stopped is named by
  // this count — a point's index — which is the same in every execution of the same schedule.
  uint64_t syscalls = 0;

  // What its blocked call waits for (see Wait), or nothing.
  std::optional<Wait> wait;

  // Exit-time futex writes the kernel performs but whose wakes reach no real waiter.
  uint64_t clear_child_tid = 0;
  uint64_t robust_list = 0;
  std::vector<uint64_t> robust_futexes;  // collected at PTRACE_EVENT_EXIT
  bool called_exit = false;              // reached PTRACE_EVENT_EXIT through exit(2)

  // Thread creation in flight (set when clone executes, consumed by the CLONE event).
  uint64_t clone_flags = 0;
  uint64_t clone_child_tid = 0;
  bool in_vfork = false;

  // What the wait depends on, for reports ("pipe:[12], its write end held by pid 7").
  std::string waits_on;
  std::set<pid_t> waits_on_processes;  // the tree's processes (tgids) that could end that wait

  // A transfer carried out in pieces: the kernel runs the call without blocking, and between
  // pieces the thread stays inside the call — its registers rewound to the syscall instruction
  // with the remainder — until the descriptor is ready again.
  struct Transfer {
    Registers original;           // as at the first entry: restored when the call returns
    int fd = -1;
    bool io_point = false;        // each piece is a scheduling point (HandlerServices::IoPointOn)
    short events = 0;             // POLLOUT for a send, POLLIN for a receive
    uint64_t total = 0;           // bytes asked for
    uint64_t done = 0;            // bytes moved so far
    uint64_t reentry_args[6] = {};  // the arguments of the rewound call, to recognise it
    bool may_block = false;       // a piece moved nothing though the descriptor was ready
    int restore_fd = -1;          // a copy of the descriptor whose O_NONBLOCK is set for a piece
    int restore_flags = 0;        // its file status flags before
  };
  std::optional<Transfer> transfer;
  // The kernel must run the next trapped call of this thread as it is (a signal is pending).
  bool native_once = false;
  uint64_t shim_state = 0;      // its preload shim's struct chess_thread_state, or 0
  // The last sync operation its preload shim announced (a CHESS_OP_* and its object): a thread
  // that announced a condition wait and then waits on a futex word inside that object waits on
  // the condition variable, which a report can say.
  uint32_t announced_op = 0;
  uint64_t announced_object = 0;
  // The seccomp filters the program installed that this thread is under (its creator's, then
  // its own; kept across exec). The kernel runs them on every syscall of the thread, those
  // chess-trace injects or rewrites included.
  seccomp::FilterChain filters;
  // SIGSEGV's state as the program set it, which an emulated rdtsc must leave as it was
  // (forced_signal.h): its blocked bit and rdtsc mode here, the actions its process's threads share.
  ForcedSignalShadow forced_signal;

  // An emulated timed wait released to the kernel for a signal: if the kernel restarts it with
  // restart_syscall, the wait goes on until the same deadline.
  struct Restartable {
    TrappedCall call;
    std::optional<MonoNanos> deadline;
    int64_t deadline_result = 0;
  };
  std::optional<Restartable> restartable;

  // Backstop interrupt bookkeeping: a PTRACE_INTERRUPT may be overtaken by another stop.
  enum class Interrupt : uint8_t { kNone, kRequested } interrupt = Interrupt::kNone;

  // Traced by a thread of the program (ptrace TRACEME, ATTACH, SEIZE), which the supervisor
  // emulates: see EmulatedTracee.
  std::optional<EmulatedTracee> traced;

  // Virtual CPU time: the virtual time that passed while this thread ran.
  int64_t cpu_nanos = 0;

  // The CPU mask the program asked for (sched_setaffinity is emulated while pinned).
  std::vector<uint8_t> affinity;

  // Nothing of a call is in flight: no wait, no transfer, no restart to take up, nothing to
  // store or deliver at the next resume, no interrupt asked for, no vfork child.
  bool Idle() const {
    return parked.at == ParkedCall::At::kNone && parked.Plain() && !wait && !transfer && !restartable &&
           pending_signal == 0 && !native_once && interrupt == Interrupt::kNone && !in_vfork;
  }
  bool Alive() const { return state != ThreadState::kExiting && state != ThreadState::kDead; }
};

// The pid `viewer` knows `target` by (0: none, it is in no namespace `viewer` sees into).
pid_t PidSeenBy(const Process& viewer, const Process& target);

class ThreadTable {
 public:
  // `program_pid`: its pid as the program sees it, when known (otherwise read from /proc).
  Process& AddProcess(pid_t tgid, uint64_t address_space, std::optional<pid_t> program_pid = std::nullopt);
  Thread& AddThread(pid_t tid, Process& process);

  Thread* Find(pid_t tid);
  Thread* Find(search::ThreadId id);
  Process* FindProcess(pid_t tgid);
  // By the ids the program sees, which differ from chess-trace's in a pid namespace: in its
  // own namespace (a futex word's owner), or as process `viewer` names it (a kill, a wait),
  // which a pid namespace the program made itself makes different.
  Thread* FindByProgramTid(pid_t tid, const Process* viewer = nullptr);
  Process* FindByProgramPid(pid_t pid, const Process* viewer = nullptr);
  // The program runs in a pid namespace: its ids are read from /proc (NSpid) as tasks appear.
  void TranslateIds(bool translate) { translate_ids_ = translate; }

  // An exec by a non-leader thread: it takes over the leader's tid and every other thread of
  // the process is gone (the kernel never reports the old leader's death).
  void RenameAfterExec(Thread& thread, pid_t leader_tid);
  // A thread's kernel tid may be reused after it is reaped.
  void Forget(pid_t tid);
  // The thread is gone: it leaves the live set (its record stays for reports).
  void MarkDead(Thread& thread);
  // Its parked call moves to `at`: the way into and out of a kernel sleep (ParkedCall::
  // InKernelSleep), which keeps KernelSleepers with it.
  void MoveParkedCall(Thread& thread, ParkedCall::At at);

  // Threads not yet dead, in creation order.
  const std::map<uint32_t, Thread*>& Live() const { return live_; }
  // Of those, the ones in a kernel sleep, in creation order: every decision settles them, and
  // looks at nothing when there are none. A thread leaves when its sleep ends or it dies.
  const std::map<uint32_t, Thread*>& KernelSleepers() const { return kernel_sleepers_; }
  const std::map<uint32_t, std::unique_ptr<Thread>>& All() const { return by_id_; }
  const std::map<pid_t, std::unique_ptr<Process>>& Processes() const { return processes_; }
  // The tree's processes a kill-like call of `sender` for `pid` reaches: `pid` as the program
  // named it (a process, with `thread` a thread; 0: the sender's group; -1: everyone it may
  // signal; -pgid). Processes outside the tree are not followed.
  std::vector<Process*> SignalTargets(pid_t pid, bool thread, const Process* sender);
  // The children of process `parent` (a tgid) that have not exited yet.
  std::vector<const Process*> LiveChildren(pid_t parent) const;
  size_t ThreadsCreated() const { return next_id_; }
  uint64_t NewAddressSpace() { return ++address_spaces_; }
  uint64_t AddressSpaces() const { return address_spaces_; }
  // Carries on from another table's count (an execution forked from a template).
  void SetAddressSpaces(uint64_t count) { address_spaces_ = count; }

 private:
  std::map<uint32_t, std::unique_ptr<Thread>> by_id_;
  std::map<pid_t, Thread*> by_tid_;
  std::map<pid_t, Thread*> by_program_tid_;
  bool translate_ids_ = false;
  bool nested_pid_namespaces_ = false;  // some task is in a pid namespace below the root's
  std::map<uint32_t, Thread*> live_;
  std::map<uint32_t, Thread*> kernel_sleepers_;
  std::map<pid_t, std::unique_ptr<Process>> processes_;
  uint32_t next_id_ = 0;
  uint64_t address_spaces_ = 0;
};

}  // namespace chess::supervisor
