#include "cli/exit_codes.h"

#include <cerrno>

namespace chess::cli {

int RunExitCode(const supervisor::ExecutionResult& result) {
  if (result.stopped_by_signal != 0) return 128 + result.stopped_by_signal;
  if (result.exec_errno) return *result.exec_errno == ENOENT ? kExitNotFound : kExitNotExecutable;
  using search::Outcome;
  switch (result.outcome) {
    case Outcome::kOk:
    case Outcome::kExitStatus:
    case Outcome::kWrongOutput:  // the program's own status: only an oracle found it wrong
    case Outcome::kCheckFailed:
      return result.exit_status.value_or(0);
    case Outcome::kSignal:
      return 128 + result.signal.value_or(0);
    case Outcome::kDeadlock:
    case Outcome::kHang:
    case Outcome::kLivelock:
    case Outcome::kGoodSamaritan:
    case Outcome::kTimeout:
    case Outcome::kStepLimit:
      return kExitStuck;
    case Outcome::kUnsupported:  // chess-trace's limit, not the program's status
      return kExitError;
    default:
      return kExitError;
  }
}

}  // namespace chess::cli
