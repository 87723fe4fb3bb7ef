#include "supervisor/forced_signal.h"

#include <signal.h>

namespace chess::supervisor {

SignalAction SignalAction::AfterExec() const {
  return Ignored() ? *this : SignalAction{};
}

void SignalActions::ResetForExec() {
  for (SignalAction& action : actions_) action = action.AfterExec();
}

uint64_t SignalActions::Deliver(int signal) {
  if (signal < 1 || signal > kSignals) return 0;
  SignalAction& action = actions_[static_cast<size_t>(signal - 1)];
  if (action.Default() || action.Ignored()) return 0;  // no handler runs
  // handle_signal: the handler runs under the mask, its sa_mask and, without SA_NODEFER, the
  // signal itself; SA_RESETHAND gives the signal SIG_DFL from now on.
  uint64_t blocks = action.mask;
  if ((action.flags & SA_NODEFER) == 0) blocks |= uint64_t{1} << (signal - 1);
  if (action.flags & SA_RESETHAND) action.handler = 0;
  return blocks;
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

ForcedSignalShadow ForcedSignalShadow::ForNewProcess() const {
  ForcedSignalShadow copy = *this;
  copy.actions_ = std::make_shared<SignalActions>(*actions_);
  return copy;
}

void ForcedSignalShadow::MaskChanged(int how, uint64_t set) {
  for (const int forced : {SIGSEGV, SIGTRAP}) {
    const std::optional<bool> blocked = BlockedAfterMaskChange(Blocked(forced), how, set, forced);
    if (!blocked) return;  // an unknown `how`: the call fails and changes nothing
    const uint64_t bit = uint64_t{1} << (forced - 1);
    blocked_ = *blocked ? blocked_ | bit : blocked_ & ~bit;
  }
}

void ForcedSignalShadow::Exec(std::optional<uint64_t> mask) {
  actions_->ResetForExec();
  if (mask) MaskIs(*mask);
}

}  // namespace chess::supervisor
