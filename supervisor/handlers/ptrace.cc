// ptrace: the program tracing its own threads (a debugger, a crash reporter, strace in a test).
// The supervisor is every thread's one real tracer, so it carries the program's requests out
// itself: the relationship is an EmulatedTracee on the tracee, its ptrace-stops are parked
// threads the supervisor reports through the tracer's wait (handlers/wait.cc), and the requests
// read and write what the supervisor read at the stop (registers, siginfo) or the tracee's
// memory, and let the tracee go by making it schedulable again. Requests not emulated are
// refused with EPERM, as all of ptrace was before.
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <string>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

namespace abi = ptrace_abi;

// The tracee a request names: a thread traced by the caller's process and, for most requests,
// in a ptrace-stop (the kernel's ptrace_check_attach); otherwise ESRCH.
Thread* FindTracee(SyscallContext& ctx, pid_t pid, bool must_be_stopped) {
  Thread* tracee = ctx.services.Threads().FindByProgramTid(pid);
  if (tracee == nullptr || !tracee->Alive() || !tracee->traced ||
      tracee->traced->TracerProcess() != ctx.thread.process->tgid) {
    return nullptr;
  }
  if (must_be_stopped && !tracee->traced->Stopped()) return nullptr;
  return tracee;
}

Disposition Refuse(SyscallContext& ctx, int64_t request) {
  ctx.services.Refuse(ctx.thread, "ptrace", EPERM,
                      "ptrace request " + std::to_string(request) +
                          " is not emulated (chess-trace is the real tracer of every thread)");
  return Disposition::Complete(-EPERM);
}

Disposition TraceMe(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  Process* parent = ctx.services.Threads().FindProcess(thread.process->parent);
  if (thread.traced) return Disposition::Complete(-EPERM);  // already traced
  // A parent outside the tree (whoever started chess-trace) cannot be emulated.
  if (parent == nullptr) return Refuse(ctx, abi::kTraceMe);
  thread.traced.emplace(parent->tgid, parent->tgid, EmulatedTracee::Origin::kTraceMe);
  return Disposition::Complete(0);
}

Disposition Attach(SyscallContext& ctx, int64_t request, pid_t pid) {
  Thread* tracee = ctx.services.Threads().FindByProgramTid(pid);
  if (tracee == nullptr || !tracee->Alive()) return Disposition::Complete(-ESRCH);
  if (tracee->process == ctx.thread.process || tracee->traced) return Disposition::Complete(-EPERM);
  if (request == abi::kSeize) {
    if (ctx.Arg(2) != 0) return Disposition::Complete(-EIO);
    if ((ctx.Arg(3) & ~abi::kOptionMask) != 0) return Disposition::Complete(-EINVAL);
    tracee->traced.emplace(ctx.thread.tid, ctx.thread.process->tgid, EmulatedTracee::Origin::kSeize, ctx.Arg(3));
    return Disposition::Complete(0);
  }
  tracee->traced.emplace(ctx.thread.tid, ctx.thread.process->tgid, EmulatedTracee::Origin::kAttach);
  // PTRACE_ATTACH sends the tracee a SIGSTOP; its signal-delivery-stop is the first the tracer
  // sees. A tracee parked in an emulated wait leaves it to take the signal.
  syscall(SYS_tgkill, tracee->process->tgid, tracee->tid, SIGSTOP);
  ctx.services.SignalSent(tracee->program_tid, true);
  return Disposition::Complete(0);
}

Disposition Kill(SyscallContext& ctx, pid_t pid) {
  Thread* tracee = FindTracee(ctx, pid, false);
  if (tracee == nullptr) return Disposition::Complete(-ESRCH);
  const bool at_once = ctx.services.SignalActsAtOnce(pid, true, SIGKILL);
  syscall(SYS_tgkill, tracee->process->tgid, tracee->tid, SIGKILL);
  if (at_once) ctx.services.SettleSignalled(pid, true, SIGKILL);
  return Disposition::Complete(0);
}

// PEEKUSER and POKEUSER: only the general registers at the start of struct user.
bool RegisterOffset(uint64_t offset) {
  return offset % sizeof(uint64_t) == 0 && offset < sizeof(user_regs_struct);
}

Disposition OnStoppedTracee(SyscallContext& ctx, int64_t request, Thread& tracee) {
  const RemoteMemory caller = ctx.Memory();
  const RemoteMemory traced(tracee.tid);
  const uint64_t address = ctx.Arg(2);
  const uint64_t data = ctx.Arg(3);
  EmulatedStop& stop = *tracee.traced->Stop();
  auto* regs = reinterpret_cast<uint64_t*>(&tracee.regs.raw());
  switch (request) {
    case abi::kPeekText:
    case abi::kPeekData: {
      // The raw call stores the word at `data`; glibc's wrapper returns it.
      const auto word = traced.Read<uint64_t>(address);
      if (!word) return Disposition::Complete(-EIO);
      return Disposition::Complete(caller.Write(data, *word) ? 0 : -EFAULT);
    }
    case abi::kPokeText:
    case abi::kPokeData:
      return Disposition::Complete(traced.Write(address, data) ? 0 : -EIO);
    case abi::kPeekUser:
      if (!RegisterOffset(address)) return Refuse(ctx, request);
      return Disposition::Complete(caller.Write(data, regs[address / sizeof(uint64_t)]) ? 0 : -EFAULT);
    case abi::kPokeUser:
      if (!RegisterOffset(address)) return Refuse(ctx, request);
      regs[address / sizeof(uint64_t)] = data;
      tracee.parked.registers_dirty = true;
      return Disposition::Complete(0);
    case abi::kGetRegs:
      return Disposition::Complete(caller.Write(data, tracee.regs.raw()) ? 0 : -EFAULT);
    case abi::kSetRegs: {
      const auto changed = caller.Read<user_regs_struct>(data);
      if (!changed) return Disposition::Complete(-EFAULT);
      tracee.regs.raw() = *changed;
      tracee.parked.registers_dirty = true;
      return Disposition::Complete(0);
    }
    case abi::kGetSigInfo:
      return Disposition::Complete(caller.Write(data, stop.info) ? 0 : -EFAULT);
    case abi::kGetEventMsg:
      return Disposition::Complete(caller.Write(data, stop.message) ? 0 : -EFAULT);
    case abi::kSetOptions:
      return Disposition::Complete(tracee.traced->SetOptions(data) ? 0 : -EINVAL);
    case abi::kCont:
    case abi::kDetach:
      if (data > _NSIG) return Disposition::Complete(-EIO);
      LeaveTraceStop(tracee, static_cast<int>(data));
      if (request == abi::kDetach) tracee.traced.reset();
      return Disposition::Complete(0);
    default:
      return Refuse(ctx, request);
  }
}

Disposition PtraceEntry(SyscallContext& ctx) {
  const int64_t request = static_cast<int64_t>(ctx.Arg(0));
  const auto pid = static_cast<pid_t>(ctx.Arg(1));
  switch (request) {
    case abi::kTraceMe:
      return TraceMe(ctx);
    case abi::kAttach:
    case abi::kSeize:
      return Attach(ctx, request, pid);
    case abi::kKill:
      return Kill(ctx, pid);
    case abi::kPeekText:
    case abi::kPeekData:
    case abi::kPokeText:
    case abi::kPokeData:
    case abi::kPeekUser:
    case abi::kPokeUser:
    case abi::kGetRegs:
    case abi::kSetRegs:
    case abi::kGetSigInfo:
    case abi::kGetEventMsg:
    case abi::kSetOptions:
    case abi::kCont:
    case abi::kDetach: {
      Thread* tracee = FindTracee(ctx, pid, true);
      if (tracee == nullptr) return Disposition::Complete(-ESRCH);
      return OnStoppedTracee(ctx, request, *tracee);
    }
    default:
      return Refuse(ctx, request);
  }
}

}  // namespace

void LeaveTraceStop(Thread& tracee, int signal) {
  tracee.pending_signal = tracee.traced->Leave(signal);
  tracee.wait.reset();
  tracee.state = ThreadState::kReady;
}

FamilyHandler PtraceHandler() { return {PtraceEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
