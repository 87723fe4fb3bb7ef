// read, readv, recvfrom, recvmsg, accept, accept4: a thread whose descriptor has nothing to give
// is disabled at once, instead of sleeping in the kernel while every other thread waits for the
// watchdog. When the descriptor becomes ready the kernel runs the call, which then returns.
#include <sys/socket.h>
#include <sys/syscall.h>

#include "supervisor/handler.h"

namespace chess::supervisor {
namespace {

Disposition InputEntry(SyscallContext& ctx) {
  const int64_t nr = ctx.thread.call.nr;
  const uint64_t flags = nr == SYS_recvfrom ? ctx.Arg(3) : nr == SYS_recvmsg ? ctx.Arg(2) : 0;
  if (flags & MSG_DONTWAIT) return Disposition::Native();
  const int fd = static_cast<int>(ctx.Arg(0));
  const std::optional<bool> ready = ctx.services.InputReady(ctx.thread, fd);
  if (!ready || *ready) return Disposition::Native();
  ctx.thread.waits_for_input = fd;
  return ctx.BlockUntil(std::nullopt, 0);
}

}  // namespace

FamilyHandler InputHandler() { return {InputEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
