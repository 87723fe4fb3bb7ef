// What chess-trace's own traps must leave as the program set it. With PR_TSC_SIGSEGV an rdtsc
// faults and the kernel forces a SIGSEGV on the thread (force_sig); an int3 chess-trace planted
// before an atomic instruction forces a SIGTRAP the same way. Forcing a signal unblocks it when it
// is blocked, and resets its action to SIG_DFL when it is blocked or ignored — all before the
// supervisor sees the trap. Natively neither trap exists, so the forced signals' actions and
// blocked bits are kept here as the program set them (handlers/signal_state.cc) and put back
// after the trap (forced_signal_undo.cc). Pure logic; the kernel's rules are unit-tested.
#pragma once

#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  // `signal` is delivered (its handler runs, SA_RESETHAND applied): the signals it blocks while
  // the handler runs, besides those blocked before (bit N-1 for signal N; none without a handler).
  uint64_t Deliver(int signal);

 private:
  std::array<SignalAction, kSignals> actions_{};
};

// Whether a signal is blocked after rt_sigprocmask(how, set) (`set`: the new set's bits, bit
// N-1 for signal N) when it was `blocked` before; nullopt when the call fails (an unknown how).
std::optional<bool> BlockedAfterMaskChange(bool blocked, int how, uint64_t set, int signal);

// What the kernel's forcing of a signal took from a program that had it `blocked` with `action`.
struct ForcedSignalLoss {
  bool unblocked = false;     // it was blocked: the kernel unblocked it
  bool action_reset = false;  // it was blocked or ignored, with an action other than SIG_DFL
  bool Any() const { return unblocked || action_reset; }
};
ForcedSignalLoss LossOfForcedSignal(bool blocked, const SignalAction& action);

// What PR_SET_TSC set for a thread (its values are PR_TSC_ENABLE and PR_TSC_SIGSEGV): whether
// the program itself wants its rdtsc to fault. chess-trace's own trap is not the program's.
enum class TimestampCounterMode : uint8_t { kEnabled = 1, kFaults = 2 };

// The forced signals' shadow, as one thread sees it: the blocked bits of SIGSEGV (an rdtsc's trap)
// and SIGTRAP (a breakpoint's) and the rdtsc mode the program set in this thread, and its
// process's signal actions (shared by the process's threads, copied by a fork). Its transitions
// are the kernel's events that change them; what a trap lost is asked of it.
class ForcedSignalShadow {
 public:
  ForcedSignalShadow() : actions_(std::make_shared<SignalActions>()) {}

  // A new task takes its creator's mask and rdtsc mode; a thread shares its process's actions,
  // a new process gets a copy.
  ForcedSignalShadow ForNewThread() const { return *this; }
  ForcedSignalShadow ForNewProcess() const;

  // rt_sigaction(signal, action).
  void ActionSet(int signal, const SignalAction& action) { actions_->Set(signal, action); }
  // rt_sigprocmask(how, set) (`set`: bit N-1 for signal N); an unknown `how` fails and changes
  // nothing.
  void MaskChanged(int how, uint64_t set);
  // The whole mask is known: rt_sigreturn's, or the one read at an exec.
  void MaskIs(uint64_t mask) { blocked_ = mask & kForcedSignals; }
  // `signal` is delivered: its handler, if it has one, runs under its sa_mask.
  void Delivered(int signal) { blocked_ |= actions_->Deliver(signal) & kForcedSignals; }
  // An exec: handlers dropped, SIG_IGN kept; the mask, when it could be read, as it is.
  void Exec(std::optional<uint64_t> mask);
  // PR_SET_TSC of the program's own.
  void SetTimestampCounter(TimestampCounterMode mode) { timestamp_counter_ = mode; }

  TimestampCounterMode TimestampCounter() const { return timestamp_counter_; }
  // The program asked for rdtsc to fault: the kernel's SIGSEGV is what it gets natively.
  bool ProgramWantsFault() const { return timestamp_counter_ == TimestampCounterMode::kFaults; }
  // A forced signal's action as the program set it, which an injected rt_sigaction puts back.
  const SignalAction& Action(int forced) const { return actions_->Of(forced); }
  // What the kernel's forcing of `forced` (SIGSEGV or SIGTRAP) took.
  ForcedSignalLoss Loss(int forced) const { return LossOfForcedSignal(Blocked(forced), Action(forced)); }

 private:
  // What the kernel forces for chess-trace's traps: SIGSEGV for an rdtsc, SIGTRAP for an int3.
  static constexpr uint64_t kForcedSignals = (uint64_t{1} << (SIGSEGV - 1)) | (uint64_t{1} << (SIGTRAP - 1));
  bool Blocked(int forced) const { return (blocked_ >> (forced - 1)) & 1; }

  std::shared_ptr<SignalActions> actions_;
  uint64_t blocked_ = 0;  // of the forced signals only
  TimestampCounterMode timestamp_counter_ = TimestampCounterMode::kEnabled;
};

}  // namespace chess::supervisor
