// Syscalls chess-trace refuses, each because it would let the program escape serialization.
#include <sys/syscall.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

Disposition RefusedEntry(SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_rseq:
      // glibc then falls back to getcpu(2), which the supervisor can answer deterministically.
      return Disposition::Complete(-ENOSYS);
    case SYS_io_uring_setup:
      ctx.services.Refuse(ctx.thread, "io_uring_setup",  ENOSYS,
                          "io_uring operations bypass the syscall filter, so chess-trace could not serialize them");
      return Disposition::Complete(-ENOSYS);
    case SYS_userfaultfd:
      ctx.services.Refuse(ctx.thread, "userfaultfd", ENOSYS,
                          "page faults resolved by another thread would block outside the supervisor's view");
      return Disposition::Complete(-ENOSYS);
    default:
      return Disposition::Complete(-ENOSYS);
  }
}

}  // namespace

FamilyHandler RefusedHandler() { return {RefusedEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
