// Exit codes of chess-trace, one table for every command (design §5).
#pragma once

#include "supervisor/execution_result.h"

namespace chess::cli {

inline constexpr int kExitBug = 1;             // explore found a bug; replay diverged
inline constexpr int kExitIncomplete = 2;      // merge: no bug, but a shard is missing or unfinished
inline constexpr int kExitStuck = 124;         // deadlock, hang, livelock, timeout, …
inline constexpr int kExitError = 125;         // chess-trace's own failure or bad usage
inline constexpr int kExitNotExecutable = 126;
inline constexpr int kExitNotFound = 127;

// `run`: the program's own status when it exited, 128+N when a signal killed it.
int RunExitCode(const supervisor::ExecutionResult& result);

}  // namespace chess::cli
