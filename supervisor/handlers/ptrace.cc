// ptrace: the program tracing its own threads (a debugger, a crash reporter, strace in a test).
// The supervisor is every thread's one real tracer, so it carries the program's requests out
// itself: the relationship is an EmulatedTracee on the tracee, its ptrace-stops are parked
// threads the supervisor reports through the tracer's wait (handlers/wait.cc), and the requests
// read and write what the supervisor read at the stop (registers, siginfo) or the tracee's
// memory, and let the tracee go by making it schedulable again. Requests not emulated are
// refused with EPERM, as all of ptrace was before.
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <string>
#include <vector>
#include <algorithm>

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
    // Seizing a job-stopped tracee traps it in its group-stop for the tracer (the kernel's
    // JOBCTL_TRAP_STOP at attach).
    if (tracee->state == ThreadState::kStopped) ctx.services.InterruptTracee(*tracee);
    return Disposition::Complete(0);
  }
  tracee->traced.emplace(ctx.thread.tid, ctx.thread.process->tgid, EmulatedTracee::Origin::kAttach);
  // PTRACE_ATTACH sends the tracee a SIGSTOP; its signal-delivery-stop is the first the tracer
  // sees. A tracee parked in an emulated wait leaves it to take the signal. A job-stopped one
  // is trapped in its group-stop first (the kernel's JOBCTL_TRAP_STOP at attach), and the
  // SIGSTOP waits.
  if (tracee->state == ThreadState::kStopped) ctx.services.InterruptTracee(*tracee);
  tracee->traced->ExpectAttachStop();
  syscall(SYS_tgkill, tracee->process->tgid, tracee->tid, SIGSTOP);
  ctx.services.SignalSent(pid, true, *ctx.thread.process);
  return Disposition::Complete(0);
}

Disposition Kill(SyscallContext& ctx, pid_t pid) {
  Thread* tracee = FindTracee(ctx, pid, false);
  if (tracee == nullptr) return Disposition::Complete(-ESRCH);
  const bool at_once = ctx.services.SignalActsAtOnce(pid, true, SIGKILL, *ctx.thread.process);
  syscall(SYS_tgkill, tracee->process->tgid, tracee->tid, SIGKILL);
  if (at_once) ctx.services.SettleSignalled(pid, true, SIGKILL, *ctx.thread.process);
  return Disposition::Complete(0);
}

// PEEKUSER and POKEUSER of the general registers at the start of struct user: the supervisor's
// copy (it may hold changes not stored yet). The rest of struct user goes to the kernel.
bool RegisterOffset(uint64_t offset) {
  return offset % sizeof(uint64_t) == 0 && offset < sizeof(user_regs_struct);
}

// The largest register set copied through (NT_X86_XSTATE is a few KiB).
constexpr size_t kMaxRegisterSet = 64 * 1024;

// Requests the kernel carries out on the supervisor's own stop of the tracee, with the tracer's
// buffers copied through the supervisor: the kernel reads and writes the caller's memory, and
// the caller is the supervisor.
Disposition ThroughTheKernel(SyscallContext& ctx, int64_t request, Thread& tracee) {
  const RemoteMemory caller = ctx.Memory();
  const uint64_t address = ctx.Arg(2);
  const uint64_t data = ctx.Arg(3);
  switch (request) {
    case abi::kPeekUser: {
      uint64_t word = 0;
      const long result = ctx.services.TraceeRequest(tracee, request, address, &word);
      if (result != 0) return Disposition::Complete(result);
      return Disposition::Complete(caller.Write(data, word) ? 0 : -EFAULT);
    }
    case abi::kPokeUser:
      return Disposition::Complete(
          ctx.services.TraceeRequest(tracee, request, address, reinterpret_cast<void*>(data)));
    case abi::kGetFpRegs:
    case abi::kSetFpRegs: {
      user_fpregs_struct fpregs{};
      if (request == abi::kSetFpRegs && !caller.Read(data, &fpregs, sizeof(fpregs))) return Disposition::Complete(-EFAULT);
      const long result = ctx.services.TraceeRequest(tracee, request, 0, &fpregs);
      if (result != 0 || request == abi::kSetFpRegs) return Disposition::Complete(result);
      return Disposition::Complete(caller.Write(data, fpregs) ? 0 : -EFAULT);
    }
    case abi::kGetRegSet:
    case abi::kSetRegSet: {
      auto vector = caller.Read<iovec>(data);
      if (!vector) return Disposition::Complete(-EFAULT);
      std::vector<char> buffer(std::min(vector->iov_len, kMaxRegisterSet));
      const auto base = reinterpret_cast<uint64_t>(vector->iov_base);
      if (request == abi::kSetRegSet && !caller.Read(base, buffer.data(), buffer.size())) {
        return Disposition::Complete(-EFAULT);
      }
      iovec local{buffer.data(), buffer.size()};
      const long result = ctx.services.TraceeRequest(tracee, request, address, &local);
      if (result != 0) return Disposition::Complete(result);
      vector->iov_len = local.iov_len;
      if (request == abi::kGetRegSet && !caller.Write(base, buffer.data(), local.iov_len)) {
        return Disposition::Complete(-EFAULT);
      }
      return Disposition::Complete(caller.Write(data, *vector) ? 0 : -EFAULT);
    }
    case abi::kGetSyscallInfo: {
      // Answers the stop the supervisor has the tracee in, which is the kernel's own syscall
      // stop for a PTRACE_SYSCALL stop. The answer's size is the full struct's.
      std::vector<char> buffer(std::min<uint64_t>(address, 256));
      const long result = ctx.services.TraceeRequest(tracee, request, buffer.size(), buffer.data());
      if (result <= 0) return Disposition::Complete(result);
      const size_t written = std::min<size_t>(static_cast<size_t>(result), buffer.size());
      if (written > 0 && !caller.Write(data, buffer.data(), written)) return Disposition::Complete(-EFAULT);
      return Disposition::Complete(result);
    }
    case abi::kArchPrctl: {
      // ARCH_SET_FS/GS take the value in `addr`; ARCH_GET_FS/GS store it at `addr`.
      constexpr uint64_t kArchSetGs = 0x1001, kArchSetFs = 0x1002, kArchGetFs = 0x1003, kArchGetGs = 0x1004;
      if (data == kArchSetGs || data == kArchSetFs) {
        return Disposition::Complete(ctx.services.TraceeRequest(tracee, request, address, reinterpret_cast<void*>(data)));
      }
      if (data != kArchGetFs && data != kArchGetGs) return Refuse(ctx, request);
      uint64_t base = 0;
      const long result = ctx.services.TraceeRequest(tracee, request, reinterpret_cast<uint64_t>(&base),
                                                     reinterpret_cast<void*>(data));
      if (result != 0) return Disposition::Complete(result);
      return Disposition::Complete(caller.Write(address, base) ? 0 : -EFAULT);
    }
    default:
      return Refuse(ctx, request);
  }
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
      if (!RegisterOffset(address)) return ThroughTheKernel(ctx, request, tracee);
      return Disposition::Complete(caller.Write(data, regs[address / sizeof(uint64_t)]) ? 0 : -EFAULT);
    case abi::kPokeUser:
      if (!RegisterOffset(address)) return ThroughTheKernel(ctx, request, tracee);
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
      if (!stop.HasSigInfo()) return Disposition::Complete(-EINVAL);
      return Disposition::Complete(caller.Write(data, stop.info) ? 0 : -EFAULT);
    case abi::kListen:
      // Only a seized tracee in a PTRACE_EVENT_STOP stop listens; the kernel's EIO otherwise.
      return Disposition::Complete(ctx.services.ListenTracee(tracee) ? 0 : -EIO);
    case abi::kGetEventMsg:
      return Disposition::Complete(caller.Write(data, stop.message) ? 0 : -EFAULT);
    case abi::kSetOptions:
      return Disposition::Complete(tracee.traced->SetOptions(data) ? 0 : -EINVAL);
    case abi::kCont:
    case abi::kSyscall:
    case abi::kSingleStep:
    case abi::kSysemu:
    case abi::kSysemuSingleStep:
    case abi::kDetach: {
      if (data > _NSIG) return Disposition::Complete(-EIO);
      using How = EmulatedTracee::Resumption;
      How how = How::kContinue;
      if (request == abi::kSyscall) how = How::kSyscall;
      if (request == abi::kSingleStep) how = How::kSingleStep;
      if (request == abi::kSysemu) how = How::kSysemu;
      if (request == abi::kSysemuSingleStep) how = How::kSysemuSingleStep;
      LeaveTraceStop(tracee, static_cast<int>(data), how);
      if (request == abi::kDetach) tracee.traced.reset();
      return Disposition::Complete(0);
    }
    default:
      return ThroughTheKernel(ctx, request, tracee);
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
    case abi::kInterrupt: {
      Thread* tracee = FindTracee(ctx, pid, false);
      if (tracee == nullptr) return Disposition::Complete(-ESRCH);
      if (!tracee->traced->Seized()) return Disposition::Complete(-EIO);
      ctx.services.InterruptTracee(*tracee);
      return Disposition::Complete(0);
    }
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
    case abi::kListen:
    case abi::kCont:
    case abi::kSyscall:
    case abi::kSingleStep:
    case abi::kSysemu:
    case abi::kSysemuSingleStep:
    case abi::kDetach:
    case abi::kGetFpRegs:
    case abi::kSetFpRegs:
    case abi::kGetRegSet:
    case abi::kSetRegSet:
    case abi::kArchPrctl:
    case abi::kGetSyscallInfo: {
      Thread* tracee = FindTracee(ctx, pid, true);
      if (tracee == nullptr) return Disposition::Complete(-ESRCH);
      return OnStoppedTracee(ctx, request, *tracee);
    }
    default:
      return Refuse(ctx, request);
  }
}

}  // namespace

void LeaveTraceStop(Thread& tracee, int signal, EmulatedTracee::Resumption how) {
  tracee.pending_signal = tracee.traced->Leave(signal, how);
  if (tracee.traced->TakeInterrupt()) {
    // Interrupted while stopped: the kernel stops it again as soon as it runs (measured), with
    // the signal still to deliver.
    tracee.traced->Enter(tracee.traced->InterruptStop());
    return;
  }
  tracee.wait.reset();
  tracee.state = ThreadState::kReady;
}

FamilyHandler PtraceHandler() { return {PtraceEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
