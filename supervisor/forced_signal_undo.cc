// Putting back what the kernel's forcing of a signal took for one of chess-trace's own traps (an
// rdtsc's SIGSEGV, a breakpoint's SIGTRAP; forced_signal.h): the blocked bit with
// PTRACE_SETSIGMASK, the action with an rt_sigaction the thread is made to call. Only when
// something was lost, which a program that leaves both signals alone never costs.
#include <sys/syscall.h>

#include <cstring>
#include <string>

#include "supervisor/injected_call.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

// Makes the thread, stopped at a trap with registers `at_trap`, set `signal`'s action back to
// `action`: the action written below the stack's red zone, and what was there put back after.
// The thread is left at the call's exit stop. Why it could not, or nullopt.
std::optional<std::string> InjectAction(const Thread& thread, const Registers& at_trap, int signal,
                                        const SignalAction& action) {
  constexpr uint64_t kRedZone = 128;
  const uint64_t address = (at_trap.Sp() - kRedZone - sizeof(SignalAction)) & ~uint64_t{15};
  const RemoteMemory memory(thread.tid);
  const std::optional<SignalAction> saved = memory.Read<SignalAction>(address);
  if (!saved || !memory.Write(address, action)) return "its stack could not hold the action";
  const auto result = InjectSyscall(thread, at_trap, SYS_rt_sigaction,
                                    {static_cast<uint64_t>(signal), address, 0, sizeof(uint64_t), 0, 0});
  memory.Write(address, *saved);
  if (const auto* why = std::get_if<std::string>(&result)) return *why;
  if (std::get<int64_t>(result) != 0) return "the injected rt_sigaction failed";
  return std::nullopt;
}

}  // namespace

void Supervisor::UndoForcedSignal(Thread& thread, const Registers& at_trap, int signal) {
  const ForcedSignalLoss loss = thread.forced_signal.Loss(signal);
  const std::string name = std::string("SIG") + sigabbrev_np(signal);
  const char* trap = signal == SIGSEGV ? "an rdtsc's trap" : "a breakpoint's trap";
  if (loss.action_reset) {
    if (auto why = InjectAction(thread, at_trap, signal, thread.forced_signal.Action(signal))) {
      Notice("could not put back the " + name + " action " + trap + " reset to SIG_DFL (" + *why + ")");
    }
  }
  if (loss.unblocked) {
    const std::optional<uint64_t> mask = ptrace::GetSignalMask(thread.tid);
    if (!mask || !ptrace::SetSignalMask(thread.tid, *mask | (uint64_t{1} << (signal - 1)))) {
      Notice("could not block " + name + " again after " + trap + " unblocked it");
    }
  }
}

}  // namespace chess::supervisor
