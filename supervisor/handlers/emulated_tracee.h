// EmulatedTracee: a thread the program itself traces (ptrace(2) from one of its own threads),
// which the supervisor — the thread's real and only tracer — traces on the program's behalf.
// The kernel allows one tracer per thread, so the program's tracer never is one: the supervisor
// keeps what the kernel would keep for it (who traces, with which options, the ptrace-stop the
// tracee is in and whether the tracer's wait has seen it) and answers the tracer's ptrace and
// wait calls from that.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <utility>

namespace chess::supervisor {

// The kernel's ptrace numbers (uapi <linux/ptrace.h>), for the emulation: <sys/ptrace.h> is the
// ptrace layer's alone (tests/layout), and the handler only names requests, it makes none.
namespace ptrace_abi {
// Requests (ptrace's first argument).
constexpr int64_t kTraceMe = 0, kPeekText = 1, kPeekData = 2, kPeekUser = 3, kPokeText = 4, kPokeData = 5,
                  kPokeUser = 6, kCont = 7, kKill = 8, kSingleStep = 9, kGetRegs = 12, kSetRegs = 13,
                  kGetFpRegs = 14, kSetFpRegs = 15, kAttach = 16, kDetach = 17, kSyscall = 24, kArchPrctl = 30, kSysemu = 31, kSysemuSingleStep = 32, kSetOptions = 0x4200, kGetEventMsg = 0x4201,
                  kGetSigInfo = 0x4202, kSetSigInfo = 0x4203, kGetRegSet = 0x4204, kSetRegSet = 0x4205,
                  kSeize = 0x4206, kInterrupt = 0x4207, kListen = 0x4208, kGetSyscallInfo = 0x420e;
// Events (a stop's status above its signal).
constexpr int kEventFork = 1, kEventVfork = 2, kEventClone = 3, kEventExec = 4, kEventVforkDone = 5,
              kEventExit = 6, kEventSeccomp = 7, kEventStop = 128;
// Options.
constexpr uint64_t kOptionTraceSysGood = 1;
constexpr uint64_t kOptionExitKill = 1ull << 20;
constexpr uint64_t kOptionSuspendSeccomp = 1ull << 21;
constexpr uint64_t kOptionMask = 0xff | kOptionExitKill | kOptionSuspendSeccomp;
}  // namespace ptrace_abi

// One ptrace-stop as the emulated tracer sees it.
struct EmulatedStop {
  enum class Kind : uint8_t {
    kSignal,  // signal-delivery-stop: the tracer decides whether the signal is delivered
    kEvent,   // PTRACE_EVENT_* stop (exit, exec, fork, …): SIGTRAP with the event above it
    kSyscall, // syscall-entry or -exit stop (PTRACE_SYSCALL): SIGTRAP, | 0x80 with TRACESYSGOOD
    kGroupStop, // group-stop: the stopping signal; a seized tracee's shows PTRACE_EVENT_STOP
  };
  Kind kind = Kind::kSignal;
  int signal = 0;          // the signal delivered (kSignal), SIGTRAP for an event stop
  int event = 0;           // PTRACE_EVENT_* (kEvent)
  uint64_t message = 0;    // what PTRACE_GETEVENTMSG answers (an exit status, a new pid)
  siginfo_t info{};        // what PTRACE_GETSIGINFO answers (kSignal; events; a seized group-stop)
  // The tracee is in the kernel's own PTRACE_EVENT_STOP trap (a group-stop, or an interrupt
  // that caught it asleep or stopped), so PTRACE_LISTEN can leave it to the kernel's listening.
  bool kernel_event_stop = false;

  // The status word the tracer's wait4 gives for it (WIFSTOPPED, WSTOPSIG, the event at bit 16).
  int WaitStatus() const;
  // Whether PTRACE_GETSIGINFO has something to answer: a group-stop of a tracee not seized has
  // no siginfo (EINVAL), as the kernel's has none.
  bool HasSigInfo() const { return kind != Kind::kGroupStop || event != 0; }
  // A PTRACE_EVENT_STOP stop (an interrupt, a seized tracee's group-stop): PTRACE_LISTEN's.
  bool IsEventStop() const { return event == ptrace_abi::kEventStop; }
};

class EmulatedTracee {
 public:
  // How the tracer let the tracee go, and so which stops come next besides signals and events.
  enum class Resumption : uint8_t {
    kContinue,    // PTRACE_CONT
    kSyscall,     // PTRACE_SYSCALL: the next syscall entry or exit stops too
    kSingleStep,  // PTRACE_SINGLESTEP: a SIGTRAP after one instruction
    kSysemu,      // PTRACE_SYSEMU: the next syscall stops at its entry and is not made
    kSysemuSingleStep,  // PTRACE_SYSEMU_SINGLESTEP: both
  };
  // How the relationship began: TRACEME and ATTACH resume with a plain stop; SEIZE had no stop.
  enum class Origin : uint8_t { kTraceMe, kAttach, kSeize };

  // `tracer`: the tracing thread (the kernel's tid); its process's threads may all wait for it.
  EmulatedTracee(pid_t tracer, pid_t tracer_process, Origin origin, uint64_t options = 0)
      : tracer_(tracer), tracer_process_(tracer_process), origin_(origin), options_(options) {}

  pid_t Tracer() const { return tracer_; }
  pid_t TracerProcess() const { return tracer_process_; }
  Origin How() const { return origin_; }
  uint64_t Options() const { return options_; }
  bool Seized() const { return origin_ == Origin::kSeize; }
  // PTRACE_SETOPTIONS: false (EINVAL) for bits the kernel does not know.
  bool SetOptions(uint64_t options);
  // Whether the tracer asked for stops at `event` (PTRACE_EVENT_EXIT: PTRACE_O_TRACEEXIT …).
  bool Wants(int event) const;

  // The tracee enters a ptrace-stop; it was in none.
  void Enter(const EmulatedStop& stop);
  bool Stopped() const { return stop_.has_value(); }
  const EmulatedStop* Stop() const { return stop_ ? &*stop_ : nullptr; }
  EmulatedStop* Stop() { return stop_ ? &*stop_ : nullptr; }
  // The tracee died (`wait_status` as waitpid gives it), and its tracer is not its parent: the
  // tracer's wait reports the death first, as the kernel's does (its ptrace-stop is over).
  void Died(int wait_status);
  // The stop — or the death — a wait of the tracer would report now (once: `consume` marks it
  // seen; WNOWAIT leaves it), or nothing.
  std::optional<int> Report(bool consume);
  bool Reported() const { return stop_ && reported_; }

  // PTRACE_INTERRUPT and PTRACE_LISTEN (seized tracees only).
  // The stop an interrupt brings: PTRACE_EVENT_STOP, with the stopping signal while the tracee's
  // process is job-stopped (the kernel's do_jobctl_trap) and SIGTRAP otherwise.
  EmulatedStop InterruptStop() const;
  // The tracer asked for an interrupt the tracee cannot take at once (it is in a stop, or asleep
  // in the kernel): it stops again as soon as it is let go, or when the kernel's trap comes.
  void AskInterrupt() { interrupt_asked_ = true; }
  bool InterruptAsked() const { return interrupt_asked_; }
  bool TakeInterrupt() { return std::exchange(interrupt_asked_, false); }
  // PTRACE_LISTEN from an event stop: the tracee stays stopped, out of the tracer's reach (its
  // requests fail with ESRCH), until a SIGCONT or an interrupt stops it again. False: EIO.
  bool Listen();
  bool Listening() const { return listening_; }
  // PTRACE_ATTACH's SIGSTOP, which the kernel sends itself (SI_KERNEL), is still to come.
  void ExpectAttachStop() { attach_stop_expected_ = true; }
  bool TakeAttachStop() { return std::exchange(attach_stop_expected_, false); }
  // Its process's group-stop ended (a SIGCONT): interrupts show SIGTRAP again.
  void JobContinued() { job_stop_signal_ = 0; }

  // The tracer lets the tracee go on (PTRACE_CONT and the like, PTRACE_DETACH) with `signal`
  // (0: none). Returns the signal to deliver: a signal-delivery-stop's own or the one the tracer
  // named; an event stop delivers none (the kernel ignores `signal` there for the exit event).
  int Leave(int signal, Resumption how = Resumption::kContinue);
  Resumption Resuming() const { return resuming_; }
  // The signal of its syscall stops (TRACESYSGOOD marks them).
  int SyscallStopSignal() const;

  // The supervisor answered the tracee's call `nr` itself (the kernel skipped it, orig_rax = -1):
  // its syscall-exit stop shows the call as the kernel would have run it (once).
  void NoteEmulatedCall(int64_t nr) { emulated_call_ = nr; }
  std::optional<int64_t> TakeEmulatedCall() { return std::exchange(emulated_call_, std::nullopt); }

  // Its PTRACE_EVENT_EXIT stop was entered already: the exit does not stop there again.
  bool ExitStopped() const { return exit_stopped_; }
  // It was let go from its exit event stop, and its exit goes on now (once).
  bool TakeExitGoingOn() { return std::exchange(exit_goes_on_, false); }
  // It was let go from its vfork event stop, and sleeps in the kernel now (once).
  bool TakeVforkWait() { return std::exchange(vfork_wait_, false); }

 private:
  pid_t tracer_;
  pid_t tracer_process_;
  Origin origin_;
  uint64_t options_;
  std::optional<EmulatedStop> stop_;
  Resumption resuming_ = Resumption::kContinue;
  std::optional<int64_t> emulated_call_;
  bool reported_ = false;
  std::optional<int> death_;
  bool death_reported_ = false;
  bool exit_stopped_ = false;
  bool exit_goes_on_ = false;
  bool vfork_wait_ = false;
  bool interrupt_asked_ = false;
  bool listening_ = false;
  int job_stop_signal_ = 0;  // the signal that stopped its process, until a SIGCONT
  bool attach_stop_expected_ = false;
};

}  // namespace chess::supervisor
