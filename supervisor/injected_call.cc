#include "supervisor/injected_call.h"
#include "supervisor/proc_maps.h"

#include <vector>

#include "supervisor/clock.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/sandbox.h"

namespace chess::supervisor {

std::optional<uint64_t> VdsoSyscallInstruction(pid_t tid) {
  for (const MapsEntry& mapping : ReadMaps(tid)) {
    if (mapping.path != "[vdso]") continue;
    if (mapping.end <= mapping.start) return std::nullopt;
    std::vector<uint8_t> code(mapping.end - mapping.start);
    if (!RemoteMemory(tid).Read(mapping.start, code.data(), code.size())) return std::nullopt;
    for (size_t i = 0; i + 1 < code.size(); ++i) {
      if (code[i] == 0x0f && code[i + 1] == 0x05) return mapping.start + i;
    }
  }
  return std::nullopt;
}

std::variant<int64_t, std::string> InjectSyscall(const Thread& thread, const Registers& at_stop, int64_t nr,
                                                 const std::array<uint64_t, 6>& args) {
  // The calls injected cannot block, so a live thread comes back at once and a dying one reports
  // its end; the bound is for a machine loaded many times over, where a thread may wait long for a
  // CPU. (It was a second, and a loaded CI machine passed it: the thread came back later, at a
  // syscall stop the supervisor no longer expected, and chess-trace stopped on an invariant.)
  constexpr int64_t kGiveUpNanos = 60'000'000'000;
  const std::optional<uint64_t> instruction = VdsoSyscallInstruction(thread.tid);
  if (!instruction) return std::string("no syscall instruction in its vDSO");
  Registers call = at_stop;
  user_regs_struct& raw = call.raw();
  raw.rip = *instruction;
  raw.rax = static_cast<uint64_t>(nr);
  raw.rdi = args[0];
  raw.rsi = args[1];
  raw.rdx = args[2];
  raw.r10 = args[3];
  raw.r8 = args[4];
  raw.r9 = args[5];
  if (!FiltersPermit(thread, SeccompDataOf(nr, call, *instruction + 2), false)) {
    return std::string("its own seccomp filter refuses the call");
  }
  // Every signal blocked while the call is made: one that arrives meanwhile (a Go runtime's
  // preemption signal) stays pending and is taken after, instead of stopping the call's way.
  const std::optional<uint64_t> mask = ptrace::GetSignalMask(thread.tid);
  if (!mask || !ptrace::SetSignalMask(thread.tid, ~uint64_t{0})) return std::string("its signal mask could not be set");
  bool done = ptrace::SetRegisters(thread.tid, call) && ptrace::ResumeToSyscallExit(thread.tid);
  // The call's entry stop, chess-trace's seccomp stop if its filter traps the call, its exit.
  // Stopped inside a syscall of its own (an exec's event stop), the thread first reports that
  // call's exit, whose return value overwrote rax: a syscall stop counts only with rip just past
  // the injected instruction, and at the other the call's registers are set again.
  const MonoNanos give_up = RealClock().Monotonic() + kGiveUpNanos;
  Registers after;
  for (int syscall_stops = 0; done && syscall_stops < 2;) {
    const auto event = ptrace::WaitFor(thread.tid, [give_up] { return RealClock().Monotonic() > give_up; });
    if (!event || (event->kind != ptrace::StopKind::kSyscallTrap && event->kind != ptrace::StopKind::kSeccomp)) {
      done = false;
      break;
    }
    if (event->kind == ptrace::StopKind::kSyscallTrap) {
      done = ptrace::GetRegisters(thread.tid, after);
      if (done && after.Ip() == *instruction + 2) {
        ++syscall_stops;
      } else if (done) {
        done = ptrace::SetRegisters(thread.tid, call);
      }
    }
    if (done && syscall_stops < 2) done = ptrace::ResumeToSyscallExit(thread.tid);
  }
  ptrace::SetSignalMask(thread.tid, *mask);
  if (!done) {
    // Not left at the injected instruction: resumed as it is, it would make the call again.
    (void)ptrace::SetRegisters(thread.tid, at_stop);
    return std::string("the thread did not come back from the call");
  }
  return after.Return();
}

}  // namespace chess::supervisor
