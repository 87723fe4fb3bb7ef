// read, readv, recvfrom, recvmsg, recvmmsg, accept, accept4: a thread whose descriptor has
// nothing to give is disabled at once, instead of sleeping in the kernel while every other
// thread waits for the watchdog. When the descriptor becomes ready the kernel runs the call,
// which then returns. A stream receive with MSG_WAITALL is carried out in pieces.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <cerrno>

#include "supervisor/handlers/pending_signals.h"
#include "supervisor/handlers/transfer.h"

namespace chess::supervisor {
namespace {

uint64_t MessageFlags(const SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_recvfrom:
    case SYS_recvmmsg: return ctx.Arg(3);
    case SYS_recvmsg: return ctx.Arg(2);
    default: return 0;
  }
}

// /dev/random (1:8) and /dev/urandom (1:9).
bool IsRandomDevice(const FdCopy& copy) {
  const std::optional<uint64_t> device = copy.DeviceNumber();
  return device && major(*device) == 1 && (minor(*device) == 8 || minor(*device) == 9);
}

Disposition InputEntry(SyscallContext& ctx) {
  const auto resource = ctx.Arg(0);
  if (ReentersTransfer(ctx.thread)) return ContinueTransfer(ctx, resource);
  const uint64_t flags = MessageFlags(ctx);
  if (flags & MSG_DONTWAIT) return Disposition::Native();
  const int fd = static_cast<int>(ctx.Arg(0));
  FdCopy copy = ctx.CopyFd(fd);
  if (!copy) return Disposition::Native();  // EBADF
  const unsigned type = copy.FileType();
  if (type == S_IFREG || type == S_IFDIR || type == S_IFBLK) return Disposition::Native();
  if (type == S_IFCHR && ctx.services.Random() != nullptr && IsRandomDevice(copy) &&
      (ctx.thread.call.nr == SYS_read || ctx.thread.call.nr == SYS_readv)) {
    return ReadRandomDevice(ctx);
  }
  if (copy.Nonblocking()) return Disposition::Native();
  if (type != S_IFIFO && type != S_IFSOCK && type != S_IFCHR) {
    // A signalfd returns a signal pending for its reader, or waits for one: as sigtimedwait
    // does, which the SignalScan releases when one is pending (an unblocked signal too, which
    // natively interrupts the read).
    if (auto signals = SignalfdMask(ctx.thread.process->tgid, fd)) {
      if (PendingOf(ctx.thread.tid, *signals) != 0) return Disposition::Native();
      return ctx.BlockUntil({SignalWait{std::nullopt, *signals}});
    }
  }
  if (type == S_IFSOCK && ctx.thread.call.nr == SYS_recvfrom && (flags & MSG_WAITALL)) {
    // All of it or nothing: the kernel would sleep between segments.
    StartTransfer(ctx, copy, fd);
    return ContinueTransfer(ctx, resource);
  }
  // A socket's own receive timeout becomes the wait's deadline: recv then fails with EAGAIN.
  std::optional<MonoNanos> deadline;
  if (type == S_IFSOCK) {
    if (auto timeout = copy.SocketTimeout(SO_RCVTIMEO)) deadline = ctx.services.Time().Monotonic() + *timeout;
  }
  const bool ready = copy.Poll(POLLIN) != 0;  // data, EOF, an error: the call returns now
  IoWait wait{{{fd, POLLIN}}};
  wait.held.push_back(std::move(copy));
  return ctx.WaitOnFds(std::move(wait), ready, deadline, -EAGAIN, resource);
}

ExecuteAnswer InputExecute(SyscallContext& ctx) {
  return ctx.thread.transfer ? RunTransferPiece(ctx) : RunWhenFdsReady(ctx);
}

}  // namespace

FamilyHandler InputHandler() {
  return {.on_entry = InputEntry, .execute = InputExecute, .on_exit = FinishTransferPiece,
          .on_timeout = TransferTimedOut};
}

}  // namespace chess::supervisor
