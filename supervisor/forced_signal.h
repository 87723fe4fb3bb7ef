// What an emulated rdtsc must leave as the program set it. With PR_TSC_SIGSEGV an rdtsc faults
// and the kernel forces a SIGSEGV on the thread (force_sig): when SIGSEGV is blocked it unblocks
// it, and when it is blocked or ignored it resets its action to SIG_DFL — all before the
// supervisor sees the fault. Natively the rdtsc changes nothing, so SIGSEGV's action and blocked
// bit are kept here as the program set them (handlers/signal_state.cc) and put back after the
// emulation (timestamp_counter.cc). Pure logic; the kernel's rules are unit-tested.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace chess::supervisor {

// A signal's action, laid out as rt_sigaction reads it on x86_64 (struct kernel_sigaction).
struct SignalAction {
  uint64_t handler = 0;  // SIG_DFL (0), SIG_IGN (1) or a function
  uint64_t flags = 0;
  uint64_t restorer = 0;
  uint64_t mask = 0;

  bool Default() const { return handler == 0; }
  bool Ignored() const { return handler == 1; }
  // What an exec leaves of it: a handler becomes SIG_DFL, SIG_IGN stays.
  SignalAction AfterExec() const;
};

// Every signal's action in a process, as the program set them: SIGSEGV's for itself, the others
// for the mask their handlers run under.
class SignalActions {
 public:
  static constexpr int kSignals = 64;
  // Signal 1 to 64; nothing else has an action.
  const SignalAction& Of(int signal) const { return actions_[static_cast<size_t>(signal - 1)]; }
  void Set(int signal, const SignalAction& action) { actions_[static_cast<size_t>(signal - 1)] = action; }
  // An exec: handlers become SIG_DFL, SIG_IGN stays.
  void ResetForExec();
  // `signal` is delivered (its handler runs, SA_RESETHAND applied): whether `watched` is blocked
  // while the handler runs, when it was `blocked` before.
  bool Deliver(int signal, bool blocked, int watched);

 private:
  std::array<SignalAction, kSignals> actions_{};
};

// Whether a signal is blocked after rt_sigprocmask(how, set) (`set`: the new set's bits, bit
// N-1 for signal N) when it was `blocked` before; nullopt when the call fails (an unknown how).
std::optional<bool> BlockedAfterMaskChange(bool blocked, int how, uint64_t set, int signal);

// What the kernel's forced SIGSEGV took from a program whose SIGSEGV was `blocked` with `action`.
struct ForcedSignalLoss {
  bool unblocked = false;     // it was blocked: the kernel unblocked it
  bool action_reset = false;  // it was blocked or ignored, with an action other than SIG_DFL
  bool Any() const { return unblocked || action_reset; }
};
ForcedSignalLoss LossOfForcedSignal(bool blocked, const SignalAction& action);

// What PR_SET_TSC set for a thread (its values are PR_TSC_ENABLE and PR_TSC_SIGSEGV): whether
// the program itself wants its rdtsc to fault. chess-trace's own trap is not the program's.
enum class TimestampCounterMode : uint8_t { kEnabled = 1, kFaults = 2 };

}  // namespace chess::supervisor
