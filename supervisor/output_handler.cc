// write, writev, sendto, sendmsg, sendmmsg: a writer whose pipe or socket is full is disabled
// until it has room, and a write larger than the room there is carried out in pieces (see
// transfer.h), so a shell's `producer | consumer` never waits for the watchdog. Regular files
// and devices never wait for another thread: the kernel runs those calls directly.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "supervisor/transfer.h"

namespace chess::supervisor {
namespace {

uint64_t MessageFlags(const SyscallContext& ctx) {
  switch (ctx.thread.call.nr) {
    case SYS_sendto:
    case SYS_sendmmsg: return ctx.Arg(3);
    case SYS_sendmsg: return ctx.Arg(2);
    default: return 0;
  }
}

constexpr short kWritable = POLLOUT | POLLERR | POLLHUP | POLLNVAL;

Disposition OutputEntry(SyscallContext& ctx) {
  const auto resource = ctx.Arg(0);
  if (ReentersTransfer(ctx.thread)) return Disposition::Point(search::OpKind::kIo, resource, true);
  if (MessageFlags(ctx) & MSG_DONTWAIT) return Disposition::Native();
  const int fd = static_cast<int>(ctx.Arg(0));
  const FdCopy copy = ctx.CopyFd(fd);
  if (!copy || copy.Nonblocking()) return Disposition::Native();  // EBADF, or EAGAIN at once
  const unsigned type = copy.FileType();
  if (type == S_IFREG || type == S_IFBLK) return Disposition::Native();
  const bool pipe_or_socket = type == S_IFIFO || type == S_IFSOCK;
  // A socket with its own send timeout, sendmmsg, a terminal: wait until writable, then let
  // the kernel run the call.
  if (!pipe_or_socket || ctx.thread.call.nr == SYS_sendmmsg ||
      (type == S_IFSOCK && copy.SocketTimeout(SO_SNDTIMEO))) {
    if (copy.Poll(POLLOUT) & kWritable) return Disposition::Native();
    return ctx.AwaitFds(IoWait{{{fd, POLLOUT}}}, std::nullopt, 0, resource, true);
  }
  StartTransfer(ctx, fd);
  return Disposition::Point(search::OpKind::kIo, resource, true);
}

Disposition OutputExecute(SyscallContext& ctx) {
  return ctx.thread.transfer ? RunTransferPiece(ctx) : RunWhenFdsReady(ctx);
}

}  // namespace

FamilyHandler OutputHandler() {
  return {.on_entry = OutputEntry, .execute = OutputExecute, .on_exit = FinishTransferPiece,
          .on_timeout = TransferTimedOut};
}

}  // namespace chess::supervisor
