// `run --check-determinism N`: runs the program N times with the same seed, the same standard
// input and — from the second run on — the first run's schedule, compares every syscall each
// run makes and every result it gets, and names the first thing chess-trace did not control.
#pragma once

#include "cli/execution.h"
#include "cli/messages.h"

namespace chess::cli {

// Exit status: 0 when every run did the same, 1 when one did not (the report says where and
// why), 125 when the check could not be made.
int CheckDeterminism(ExecutionSettings settings, int runs, Messages& messages);

}  // namespace chess::cli
