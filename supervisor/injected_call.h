// A syscall the supervisor makes a stopped thread make, at a stop that is not at a syscall of the
// thread's own (a trap's signal stop, an exec event, a syscall's exit): the thread runs the
// `syscall` instruction of its vDSO with the call's registers. Used to put back what a forced
// signal took (forced_signal_undo.cc) and to map the pages of out-of-line copies (atomic points).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "supervisor/ptrace/registers.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// The address of a `syscall` instruction (0F 05) in the thread's vDSO, which stays mapped when
// chess-trace hides it from the program.
std::optional<uint64_t> VdsoSyscallInstruction(pid_t tid);

// Makes `thread`, stopped with registers `at_stop`, make syscall `nr` with `args`: its result
// (a negative errno included), or why it could not be made (its own seccomp filter refuses it,
// no vDSO, the thread died). The thread is left at the call's exit stop with the call's
// registers: the caller puts back the ones it needs (usually `at_stop`). chess-trace's own filter
// may trap the call: that seccomp stop is let through here, never seen by a handler.
std::variant<int64_t, std::string> InjectSyscall(const Thread& thread, const Registers& at_stop, int64_t nr,
                                                 const std::array<uint64_t, 6>& args);

}  // namespace chess::supervisor
