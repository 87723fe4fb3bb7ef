// Syscalls chess-trace refuses, each because it would let the program escape serialization,
// and the hypercalls of the preload shim.
#include <sys/syscall.h>

#include <cerrno>

#include "seccomp/arch.h"
#include "seccomp/hypercall_abi.h"
#include "supervisor/handler.h"

namespace chess::supervisor {
namespace {

Disposition RefusedEntry(SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_rseq:
      // glibc then falls back to getcpu(2), which the supervisor can answer deterministically.
      return Disposition::Complete(-ENOSYS);
    case SYS_io_uring_setup:
      ctx.services.Notice("refused io_uring_setup: io_uring operations bypass the syscall filter, "
                          "so chess-trace could not serialize them; the program sees ENOSYS");
      return Disposition::Complete(-ENOSYS);
    case SYS_userfaultfd:
      ctx.services.Notice("refused userfaultfd: page faults resolved by another thread would "
                          "block outside the supervisor's view; the program sees ENOSYS");
      return Disposition::Complete(-ENOSYS);
    case SYS_ptrace:
      ctx.services.Notice("refused ptrace: the program is already traced by chess-trace and a "
                          "thread cannot have two tracers; the program sees EPERM");
      return Disposition::Complete(-EPERM);
    default:
      return Disposition::Complete(-ENOSYS);
  }
}

Disposition HypercallEntry(SyscallContext& ctx) {
  switch (ctx.thread.call.nr - seccomp::kHypercallFirst) {
    case CHESS_HC_HELLO:
      return Disposition::Complete(CHESS_HC_MAGIC);
    case CHESS_HC_SYNC_OP:
      return Disposition::Point(search::OpKind::kSyncOp, ctx.Arg(1));
    default:
      return Disposition::Complete(-ENOSYS);
  }
}

Disposition HypercallExecute(SyscallContext&) { return Disposition::Complete(0); }

}  // namespace

FamilyHandler RefusedHandler() { return {RefusedEntry, NoDeferredOperation}; }
FamilyHandler HypercallHandler() { return {HypercallEntry, HypercallExecute}; }

}  // namespace chess::supervisor
