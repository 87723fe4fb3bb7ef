// flock(LOCK_SH/LOCK_EX) and fcntl(F_SETLKW, F_OFD_SETLKW): a thread that would wait for a lock
// another holder has is disabled until the lock is free. The filter traps only these forms
// (flock without LOCK_NB, the two waiting fcntl commands), so other fcntl calls cost nothing.
//
// flock and OFD locks belong to the open file description, which a pidfd_getfd copy shares: a
// non-blocking attempt on the copy tells whether the program's call would wait (an OFD lock is
// then kept, exactly as the program's call would have taken it). A process-associated lock
// (F_SETLKW) belongs to the calling process, so the supervisor only asks whether another owner
// holds a conflicting one.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/syscall.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

enum class Attempt { kTaken, kFree, kHeldByAnother, kKernelDecides };

Attempt Try(SyscallContext& ctx) {
  const int fd = static_cast<int>(ctx.Arg(0));
  const FdCopy copy = ctx.CopyFd(fd);
  if (!copy) return Attempt::kKernelDecides;  // EBADF
  if (ctx.thread.call.nr == SYS_flock) {
    // Taken and given back at once: the program's own call then takes it without waiting, and
    // /proc/locks names the program as the holder, not chess-trace.
    if (flock(copy.get(), static_cast<int>(ctx.Arg(1)) | LOCK_NB) != 0) {
      return errno == EWOULDBLOCK ? Attempt::kHeldByAnother : Attempt::kKernelDecides;
    }
    flock(copy.get(), LOCK_UN);
    return Attempt::kFree;
  }
  auto lock = ctx.Memory().Read<struct flock>(ctx.Arg(2));
  if (!lock) return Attempt::kKernelDecides;  // EFAULT
  if (static_cast<int>(ctx.Arg(1)) == F_OFD_SETLKW) {
    if (fcntl(copy.get(), F_OFD_SETLK, &*lock) == 0) return Attempt::kTaken;
    return errno == EAGAIN || errno == EACCES ? Attempt::kHeldByAnother : Attempt::kKernelDecides;
  }
  // F_SETLKW: an OFD query conflicts with every process lock, the caller's own included, which
  // natively would not stand in its way; for those the kernel decides.
  struct flock query = *lock;
  query.l_pid = 0;
  if (fcntl(copy.get(), F_OFD_GETLK, &query) != 0) return Attempt::kKernelDecides;
  if (query.l_type == F_UNLCK) return Attempt::kFree;
  if (query.l_pid == ctx.thread.process->tgid) return Attempt::kKernelDecides;
  return Attempt::kHeldByAnother;
}

Disposition FileLockEntry(SyscallContext& ctx) {
  return Disposition::Point(search::OpKind::kSyscall, ctx.Arg(0), true);
}

ExecuteAnswer FileLockExecute(SyscallContext& ctx) {
  switch (Try(ctx)) {
    case Attempt::kTaken: return ExecuteAnswer::Complete(0);
    case Attempt::kHeldByAnother:
      return ctx.BlockUntil({ObjectWait{}});
    case Attempt::kFree:
    case Attempt::kKernelDecides: break;
  }
  return ExecuteAnswer::Native();
}

bool FileLockReady(SyscallContext& ctx) { return Try(ctx) != Attempt::kHeldByAnother; }

}  // namespace

FamilyHandler FileLockHandler() {
  return {.on_entry = FileLockEntry, .execute = FileLockExecute, .ready = FileLockReady};
}

}  // namespace chess::supervisor
