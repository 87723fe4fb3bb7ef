// The ptrace layer: the only code that calls ptrace(2) and waitpid(2). Each call is named for
// what it does; failures that mean "the thread is gone" return false rather than throwing,
// because a tracee can die at any moment (SIGKILL, exit_group of a sibling).
#pragma once

#include <functional>

#include <sys/ptrace.h>
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "supervisor/ptrace/registers.h"

namespace chess::supervisor::ptrace {

// Every option chess-trace needs; EXITKILL makes the kernel kill the tree if we die.
long TraceOptions();

// Attaches to a fresh child with PTRACE_SEIZE (needed for PTRACE_INTERRUPT). Returns 0 or errno.
int Seize(pid_t pid);

bool Resume(pid_t tid, int signal = 0);
// Resumes a thread at a seccomp stop so that it stops again when the syscall returns.
bool ResumeToSyscallExit(pid_t tid);
bool Interrupt(pid_t tid);
// Lets the thread go, delivering `signal` to it (SIGSTOP: it stays stopped for another tracer).
bool Detach(pid_t tid, int signal = 0);
// Leaves a thread in its group-stop (a job-control stop) while the tracer lets it be: it stays
// stopped, and reports again when a SIGCONT ends the stop.
bool Listen(pid_t tid);
bool GetRegisters(pid_t tid, Registers& regs);
bool SetRegisters(pid_t tid, const Registers& regs);
std::optional<unsigned long> EventMessage(pid_t tid);
// The AUDIT_ARCH_* of the call a thread is stopped in (PTRACE_GET_SYSCALL_INFO): which ABI made
// it, which its registers do not say. nullopt when it could not be read.
std::optional<uint32_t> SyscallArch(pid_t tid);
bool GetSignalInfo(pid_t tid, siginfo_t& info);
// Resumes `tid` to stop at its next syscall entry or exit too (PTRACE_SYSCALL), or after one
// instruction (PTRACE_SINGLESTEP): what the program's own tracer asked of it.
bool ResumeToNextSyscall(pid_t tid, int signal);
bool SingleStep(pid_t tid, int signal);
// PTRACE_SYSEMU (with `single_step`, PTRACE_SYSEMU_SINGLESTEP): the next syscall stops at its
// entry and is not made.
bool Sysemu(pid_t tid, int signal, bool single_step);
// Whether a syscall stop of `tid` is at the call's entry (PTRACE_GET_SYSCALL_INFO).
std::optional<bool> AtSyscallEntry(pid_t tid);
// A request of the program's own tracer that reads or writes the state of `tid`, stopped by the
// supervisor (its FP registers, a register set, its debug registers), made as the program made
// it — the raw call: PEEKUSER stores the word at `data`. 0 or -errno.
long ProgramRequest(long request, pid_t tid, uint64_t addr, void* data);
bool SetSignalInfo(pid_t tid, const siginfo_t& info);
// The thread's blocked signals (bit N-1 for signal N), read and set while it is stopped.
std::optional<uint64_t> GetSignalMask(pid_t tid);
bool SetSignalMask(pid_t tid, uint64_t mask);
// The thread's debug register `index` (DR0–DR3 addresses, DR6 status, DR7 control), read and
// written while it is stopped. The kernel checks what DR7 enables and refuses kernel addresses.
bool SetDebugRegister(pid_t tid, int index, uint64_t value);
std::optional<uint64_t> GetDebugRegister(pid_t tid, int index);


// What a waitpid status means for a traced thread.
enum class StopKind : uint8_t {
  kExited,       // WIFEXITED: `value` is the exit code
  kKilled,       // WIFSIGNALED: `value` is the signal
  kSeccomp,      // a SECCOMP_RET_TRACE stop
  kEvent,        // PTRACE_EVENT_*: `value` is the event
  kSignal,       // signal-delivery-stop: `value` is the signal
  kGroupStop,    // group-stop of a seized thread: `value` is the stopping signal
  kSyscallTrap,  // syscall-enter/exit stop (TRACESYSGOOD)
};

struct WaitEvent {
  pid_t tid = 0;
  StopKind kind = StopKind::kExited;
  int value = 0;
  int status = 0;
};

WaitEvent Classify(pid_t tid, int status);

// Blocks until any traced thread changes state. nullopt when interrupted by a signal (errno
// EINTR) or when nothing is traced any more (errno ECHILD).
std::optional<WaitEvent> WaitAny();
// Non-blocking variant: nullopt when no thread has changed state.
std::optional<WaitEvent> PollAny();
// Blocks until `tid` (-1: any tracee) changes state (it must be about to: a new thread's first
// stop, a death). Ends with nullopt when nothing is traced any more (errno ECHILD), when a
// request to stop chess-trace (SIGINT, SIGTERM, SIGHUP) is pending — the kernel's promise may
// rest on a tracee that will never get to keep it — and, when `give_up` is given, when it
// answers true; both are asked whenever a signal (the supervisor's tick) interrupts the wait.
std::optional<WaitEvent> WaitFor(pid_t tid, const std::function<bool()>& give_up = {});

// Non-blocking: `tid`'s next event if it has one now.
std::optional<WaitEvent> PollFor(pid_t tid);

// Waiting for children that are not tracees (the namespaces' init and what it reaps) lives here
// too, so that one folder holds every wait of the program.
// Whether child `pid` (traced or not) has changed state, without blocking: its status, or nullopt
// when it has not. `gone` is set when it cannot be waited for (already reaped, not a child).
std::optional<int> PollChild(pid_t pid, bool& gone);
// Blocks until child `pid` has exited and reaps it (it must be about to: killed, or its control
// descriptor closed); its wait status, or nullopt when it was not a child to wait for.
std::optional<int> ReapChild(pid_t pid);
// Reaps every child that has exited by now, without blocking.
void ReapExitedChildren();

}  // namespace chess::supervisor::ptrace
