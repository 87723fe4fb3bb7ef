// write, writev, sendto, sendmsg, sendmmsg: a writer whose pipe or socket is full is disabled
// until it has room, and a write larger than the room there is carried out in pieces (see
// transfer.h), so a shell's `producer | consumer` never waits for the watchdog. A write that
// surely fits in a pipe, and writes to regular files and devices, go to the kernel directly.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/handlers/transfer.h"

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

// Whether `count` bytes surely fit into the pipe now. A pipe is a ring of page-sized slots; a
// write fills ceil(count / page) + 1 of them at most, and the bytes queued occupy at most
// ceil(queued / page) + 2 (a partly read head, a partly filled tail). Pipes filled by splice
// may use more slots than that; a write that then does not fit sleeps in the kernel, and the
// watchdog finds it.
bool SurelyFitsInPipe(const FdCopy& copy, uint64_t count) {
  const long page = sysconf(_SC_PAGESIZE);
  int queued = 0;
  const int capacity = fcntl(copy.get(), F_GETPIPE_SZ);
  if (capacity <= 0 || ioctl(copy.get(), FIONREAD, &queued) != 0) return false;
  const uint64_t slots = static_cast<uint64_t>(capacity / page);
  const uint64_t used = (static_cast<uint64_t>(queued) + page - 1) / page + 2;
  const uint64_t needed = (count + page - 1) / page + 1;
  return used + needed <= slots;
}

Disposition OutputEntry(SyscallContext& ctx) {
  const auto resource = ctx.Arg(0);
  if (ReentersTransfer(ctx.thread)) return ContinueTransfer(ctx, resource, true);
  if (MessageFlags(ctx) & MSG_DONTWAIT) return Disposition::Native();
  const int fd = static_cast<int>(ctx.Arg(0));
  FdCopy copy = ctx.CopyFd(fd);
  if (!copy) return Disposition::Native();  // EBADF
  const unsigned type = copy.FileType();
  if (type == S_IFREG || type == S_IFBLK || copy.Nonblocking()) return Disposition::Native();
  const int64_t nr = ctx.thread.call.nr;
  if (type == S_IFIFO && (nr == SYS_write || nr == SYS_writev) && !ctx.services.IoPointOn(copy)) {
    // The common case of a pipeline: no need to go in pieces.
    const uint64_t count = nr == SYS_write ? ctx.Arg(2) : ~uint64_t{0};
    if (nr == SYS_write && SurelyFitsInPipe(copy, count)) return Disposition::Native();
  }
  const bool pipe_or_socket = type == S_IFIFO || type == S_IFSOCK;
  // A socket with its own send timeout, sendmmsg, a terminal: wait until writable, then let
  // the kernel run the call.
  if (!pipe_or_socket || nr == SYS_sendmmsg || (type == S_IFSOCK && copy.SocketTimeout(SO_SNDTIMEO))) {
    const bool ready = (copy.Poll(POLLOUT) & kWritable) != 0;
    IoWait wait{{{fd, POLLOUT}}};
    wait.held.push_back(std::move(copy));
    return ctx.WaitOnFds(std::move(wait), ready, std::nullopt, 0, resource, true);
  }
  StartTransfer(ctx, copy, fd);
  return ContinueTransfer(ctx, resource, true);
}

ExecuteAnswer OutputExecute(SyscallContext& ctx) {
  return ctx.thread.transfer ? RunTransferPiece(ctx) : RunWhenFdsReady(ctx);
}

}  // namespace

FamilyHandler OutputHandler() {
  return {.on_entry = OutputEntry, .execute = OutputExecute, .on_exit = FinishTransferPiece,
          .on_timeout = TransferTimedOut};
}

}  // namespace chess::supervisor
