// execve, execveat: the new image is set up by the event loop at PTRACE_EVENT_EXEC; here the call
// is only a scheduling point.

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

using search::OpKind;

// An exec replaces the address space: it is visible to every thread of the process (they die).
Disposition ExecEntry(SyscallContext&) { return Disposition::Point(OpKind::kSyscall, 0, true); }
ExecuteAnswer ExecExecute(SyscallContext&) { return ExecuteAnswer::Native(); }

}  // namespace

FamilyHandler ExecHandler() { return {ExecEntry, ExecExecute}; }

}  // namespace chess::supervisor
