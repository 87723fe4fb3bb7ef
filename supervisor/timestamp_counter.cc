// rdtsc and rdtscp. With PR_TSC_SIGSEGV they fault instead of reading the CPU's counter; the
// supervisor answers from the virtual clock at 1 GHz (one tick per virtual nanosecond), so a
// program calibrating the counter against clock_gettime finds a steady frequency, and moves
// virtual time a little, so that successive reads increase.
//
// The fault is a SIGSEGV the kernel forces on the thread, and forcing it unblocks a blocked
// SIGSEGV and resets a blocked or ignored one's action to SIG_DFL before the supervisor sees the
// fault (forced_signal.h). Natively the rdtsc changes nothing, so what the program had set, kept
// from its rt_sigaction and rt_sigprocmask calls, is put back (forced_signal_undo.cc), only when
// something was lost: ld.so's rdtscs at every start cost nothing more.
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
  UndoForcedSignal(thread, regs, SIGSEGV);
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
