#include "supervisor/forced_signal.h"

#include <signal.h>

namespace chess::supervisor {

SignalAction SignalAction::AfterExec() const {
  return Ignored() ? *this : SignalAction{};
}

std::optional<bool> BlockedAfterMaskChange(bool blocked, int how, uint64_t set, int signal) {
  const bool in_set = (set >> (signal - 1)) & 1;
  switch (how) {
    case SIG_BLOCK:
      return blocked || in_set;
    case SIG_UNBLOCK:
      return blocked && !in_set;
    case SIG_SETMASK:
      return in_set;
    default:
      return std::nullopt;
  }
}

ForcedSignalLoss LossOfForcedSignal(bool blocked, const SignalAction& action) {
  // force_sig_info_to_task: a blocked or ignored signal gets SIG_DFL, a blocked one is unblocked.
  return {.unblocked = blocked, .action_reset = (blocked || action.Ignored()) && !action.Default()};
}

}  // namespace chess::supervisor
