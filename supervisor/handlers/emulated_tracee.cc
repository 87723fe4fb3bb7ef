#include "supervisor/handlers/emulated_tracee.h"

#include <csignal>

#include "supervisor/invariant.h"

namespace chess::supervisor {

int EmulatedStop::WaitStatus() const {
  // As the kernel builds it: 0x7f for a stop, the signal above, and an event above that.
  const int stopped = 0x7f | (signal << 8);
  return kind == Kind::kEvent || kind == Kind::kGroupStop ? stopped | (event << 16) : stopped;
}

bool EmulatedTracee::SetOptions(uint64_t options) {
  if ((options & ~ptrace_abi::kOptionMask) != 0) return false;
  options_ = options;
  return true;
}

bool EmulatedTracee::Wants(int event) const {
  // PTRACE_O_TRACEFORK is 1 << PTRACE_EVENT_FORK, and so on for every event with an option.
  return event > 0 && event < 32 && (options_ & (1ull << event)) != 0;
}

void EmulatedTracee::Enter(const EmulatedStop& stop) {
  CHESS_CHECK(!stop_, "an emulated tracee entered a ptrace-stop while in one");
  stop_ = stop;
  reported_ = false;
  listening_ = false;
  if (stop.kind == EmulatedStop::Kind::kGroupStop) job_stop_signal_ = stop.signal;
  if (stop.kind == EmulatedStop::Kind::kSignal && stop.signal == SIGCONT) job_stop_signal_ = 0;
  if (stop.kind == EmulatedStop::Kind::kEvent && stop.event == ptrace_abi::kEventExit) exit_stopped_ = true;
}

void EmulatedTracee::Died(int wait_status) {
  stop_.reset();
  death_ = wait_status;
}

std::optional<int> EmulatedTracee::Report(bool consume) {
  if (death_) {
    if (death_reported_) return std::nullopt;
    if (consume) death_reported_ = true;
    return death_;
  }
  if (!stop_ || reported_) return std::nullopt;
  if (consume) reported_ = true;
  return stop_->WaitStatus();
}

EmulatedStop EmulatedTracee::InterruptStop() const {
  EmulatedStop stop{.kind = EmulatedStop::Kind::kEvent, .signal = job_stop_signal_ != 0 ? job_stop_signal_ : SIGTRAP,
                    .event = ptrace_abi::kEventStop};
  stop.info.si_signo = stop.signal;
  stop.info.si_code = stop.signal | (ptrace_abi::kEventStop << 8);
  return stop;
}

bool EmulatedTracee::Listen() {
  if (!stop_ || !Seized() || !stop_->IsEventStop()) return false;
  stop_.reset();
  reported_ = false;
  listening_ = true;
  return true;
}

int EmulatedTracee::SyscallStopSignal() const {
  return (options_ & ptrace_abi::kOptionTraceSysGood) != 0 ? SIGTRAP | 0x80 : SIGTRAP;
}

int EmulatedTracee::Leave(int signal, Resumption how) {
  CHESS_CHECK(stop_.has_value(), "an emulated tracee was let go from no ptrace-stop");
  const EmulatedStop stop = *stop_;
  stop_.reset();
  reported_ = false;
  resuming_ = how;
  // The kernel delivers the signal named at a syscall stop too (ptrace_report_syscall), but
  // none at an event stop.
  if (stop.kind == EmulatedStop::Kind::kEvent) {
    if (stop.event == ptrace_abi::kEventExit) exit_goes_on_ = true;
    if (stop.event == ptrace_abi::kEventVfork) vfork_wait_ = true;
    return 0;
  }
  return signal;
}

}  // namespace chess::supervisor
