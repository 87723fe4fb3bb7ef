// rdtsc and rdtscp. With PR_TSC_SIGSEGV they fault instead of reading the CPU's counter; the
// supervisor answers from the virtual clock at 1 GHz (one tick per virtual nanosecond), so a
// program calibrating the counter against clock_gettime finds a steady frequency, and moves
// virtual time a little, so that successive reads increase.
//
// The fault is a SIGSEGV the kernel forces on the thread, and forcing it unblocks a blocked
// SIGSEGV and resets a blocked or ignored one's action to SIG_DFL before the supervisor sees the
// fault (forced_signal.h). Natively the rdtsc changes nothing, so what the program had set, kept
// from its rt_sigaction and rt_sigprocmask calls, is put back: the blocked bit with
// PTRACE_SETSIGMASK, the action with an rt_sigaction injected from a `syscall` instruction of
// the vDSO. Both only when something was lost: ld.so's rdtscs at every start cost nothing more.
// A thread that asked for PR_TSC_SIGSEGV itself (handlers/prctl.cc) gets the SIGSEGV instead.
#include <signal.h>
#include <sys/syscall.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "supervisor/sandbox.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

constexpr int64_t kReadTick = 100;

// The faulting instruction: 0F 31 is rdtsc, 0F 01 F9 rdtscp; anything else is a real fault.
int CounterInstructionLength(pid_t tid, uint64_t ip, bool& with_processor_id) {
  uint8_t code[3] = {};
  if (!RemoteMemory(tid).Read(ip, code, sizeof(code))) return 0;
  if (code[0] != 0x0f) return 0;
  with_processor_id = code[1] == 0x01 && code[2] == 0xf9;
  if (code[1] == 0x31) return 2;
  return with_processor_id ? 3 : 0;
}

// The address of a `syscall` instruction (0F 05) in the thread's vDSO, which stays mapped when
// chess-trace hides it from the program: a call can be made from there at a stop that is not at
// a syscall of the thread's own.
std::optional<uint64_t> VdsoSyscallInstruction(pid_t tid) {
  std::ifstream maps("/proc/" + std::to_string(tid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("[vdso]") == std::string::npos) continue;
    uint64_t start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64, &start, &end) != 2 || end <= start) return std::nullopt;
    std::vector<uint8_t> code(end - start);
    if (!RemoteMemory(tid).Read(start, code.data(), code.size())) return std::nullopt;
    for (size_t i = 0; i + 1 < code.size(); ++i) {
      if (code[i] == 0x0f && code[i + 1] == 0x05) return start + i;
    }
  }
  return std::nullopt;
}

// Makes the thread, stopped at its rdtsc's SIGSEGV with registers `at_fault`, set SIGSEGV's
// action back to `action`: rt_sigaction from the vDSO's `syscall`, the action written below the
// stack's red zone (and what was there put back after). The thread is left at the call's exit
// stop. Why it could not, or nullopt.
std::optional<std::string> InjectSegvAction(const Thread& thread, const Registers& at_fault, const SignalAction& action) {
  constexpr uint64_t kRedZone = 128;
  constexpr int64_t kGiveUpNanos = 1'000'000'000;  // the call cannot wait: only a dying thread is slower
  const std::optional<uint64_t> instruction = VdsoSyscallInstruction(thread.tid);
  if (!instruction) return "no syscall instruction in its vDSO";
  const uint64_t address = (at_fault.Sp() - kRedZone - sizeof(SignalAction)) & ~uint64_t{15};
  Registers call = at_fault;
  user_regs_struct& raw = call.raw();
  raw.rip = *instruction;
  raw.rax = SYS_rt_sigaction;
  raw.rdi = SIGSEGV;
  raw.rsi = address;
  raw.rdx = 0;
  raw.r10 = sizeof(uint64_t);
  if (!FiltersPermit(thread, SeccompDataOf(SYS_rt_sigaction, call, *instruction + 2), false)) {
    return "its own seccomp filter refuses rt_sigaction";
  }
  const RemoteMemory memory(thread.tid);
  const std::optional<SignalAction> saved = memory.Read<SignalAction>(address);
  if (!saved || !memory.Write(address, action)) return "its stack could not hold the action";
  bool done = ptrace::SetRegisters(thread.tid, call) && ptrace::ResumeToSyscallExit(thread.tid);
  // The call's entry stop, chess-trace's seccomp stop (it traps rt_sigaction of SIGSEGV), its exit.
  const MonoNanos give_up = RealClock().Monotonic() + kGiveUpNanos;
  for (int syscall_stops = 0; done && syscall_stops < 2;) {
    const auto event = ptrace::WaitFor(thread.tid, [give_up] { return RealClock().Monotonic() > give_up; });
    if (!event || (event->kind != ptrace::StopKind::kSyscallTrap && event->kind != ptrace::StopKind::kSeccomp)) {
      done = false;
      break;
    }
    if (event->kind == ptrace::StopKind::kSyscallTrap) ++syscall_stops;
    if (syscall_stops < 2) done = ptrace::ResumeToSyscallExit(thread.tid);
  }
  Registers after;
  done = done && ptrace::GetRegisters(thread.tid, after) && after.Return() == 0;
  memory.Write(address, *saved);
  if (!done) return "the injected rt_sigaction failed";
  return std::nullopt;
}

}  // namespace

bool Supervisor::EmulateTimestampCounter(Thread& thread) {
  if (clocks_.Virtual() == nullptr) return false;
  siginfo_t info{};
  // A #GP from rdtsc arrives as SIGSEGV with SI_KERNEL; page faults have their own codes.
  if (!ptrace::GetSignalInfo(thread.tid, info) || info.si_code != SI_KERNEL) return false;
  Registers regs;
  if (!ptrace::GetRegisters(thread.tid, regs)) return false;
  bool with_processor_id = false;
  const int length = CounterInstructionLength(thread.tid, regs.Ip(), with_processor_id);
  if (length == 0) return false;
  // The program asked for the fault itself: the kernel's forced SIGSEGV is what it gets natively.
  if (thread.forced_signal.ProgramWantsFault()) return false;
  const ForcedSignalLoss loss = thread.forced_signal.Loss();
  if (loss.action_reset) {
    if (auto why = InjectSegvAction(thread, regs, thread.forced_signal.Action())) {
      Notice("could not put back the SIGSEGV action an rdtsc's trap reset to SIG_DFL (" + *why + ")");
    }
  }
  if (loss.unblocked) {
    const std::optional<uint64_t> mask = ptrace::GetSignalMask(thread.tid);
    if (!mask || !ptrace::SetSignalMask(thread.tid, *mask | (uint64_t{1} << (SIGSEGV - 1)))) {
      Notice("could not block SIGSEGV again after an rdtsc's trap unblocked it");
    }
  }
  AdvanceTime(kReadTick);
  const auto counter = static_cast<uint64_t>(clocks_.ProgramNow());
  user_regs_struct& raw = regs.raw();
  raw.rax = counter & 0xffffffffu;
  raw.rdx = counter >> 32;
  if (with_processor_id) raw.rcx = 0;  // IA32_TSC_AUX: CPU 0, node 0, as getcpu answers
  raw.rip += static_cast<uint64_t>(length);
  ptrace::SetRegisters(thread.tid, regs);
  ptrace::Resume(thread.tid);  // the fault is consumed: no signal
  return true;
}

}  // namespace chess::supervisor
