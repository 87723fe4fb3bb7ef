// splice, tee, vmsplice, sendfile: data moved between two descriptors (or memory and a pipe)
// inside the kernel. The thread is disabled until its input has data and its output has room;
// then the kernel moves what it can.
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

Disposition SpliceEntry(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  IoWait wait;
  wait.needs_all = true;
  uint64_t flags = 0;
  switch (nr) {
    case SYS_splice:
      wait.fds = {{static_cast<int>(ctx.Arg(0)), POLLIN}, {static_cast<int>(ctx.Arg(2)), POLLOUT}};
      flags = ctx.Arg(5);
      break;
    case SYS_tee:
      wait.fds = {{static_cast<int>(ctx.Arg(0)), POLLIN}, {static_cast<int>(ctx.Arg(1)), POLLOUT}};
      flags = ctx.Arg(3);
      break;
    case SYS_vmsplice: {
      const int fd = static_cast<int>(ctx.Arg(0));
      const FdCopy copy = ctx.CopyFd(fd);
      if (!copy) return Disposition::Native();
      const bool writes_to_pipe = (copy.StatusFlags() & O_ACCMODE) != O_RDONLY;
      wait.fds = {{fd, static_cast<short>(writes_to_pipe ? POLLOUT : POLLIN)}};
      flags = ctx.Arg(3);
      break;
    }
    default:  // sendfile(out, in, offset, count)
      wait.fds = {{static_cast<int>(ctx.Arg(1)), POLLIN}, {static_cast<int>(ctx.Arg(0)), POLLOUT}};
      break;
  }
  if (flags & SPLICE_F_NONBLOCK) return Disposition::Native();
  FdProbe& probe = ctx.services.Fds();
  for (const FdInterest& interest : wait.fds) {
    const FdCopy copy = probe.Copy(ctx.thread.process->tgid, interest.fd);
    if (!copy || copy.Nonblocking()) return Disposition::Native();
  }
  const auto output = static_cast<uint64_t>(wait.fds.back().fd);
  const bool ready = IoWaitReady(probe, ctx.thread.process->tgid, wait);
  return ctx.WaitOnFds(std::move(wait), ready, std::nullopt, 0, output, true);
}

}  // namespace

FamilyHandler SpliceHandler() { return {.on_entry = SpliceEntry, .execute = RunWhenFdsReady}; }

}  // namespace chess::supervisor
