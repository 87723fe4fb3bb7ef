#include "supervisor/handlers/handler.h"

#include <poll.h>

#include "supervisor/invariant.h"
#include "supervisor/sandbox.h"

namespace chess::supervisor {

bool SyscallContext::FiltersPermitChange(const Registers& changed) const {
  return FiltersPermit(thread, SeccompDataOf(changed.SyscallNr(), changed, changed.Ip()), true);
}

bool SyscallContext::FiltersPermitReentry(const Registers& changed) const {
  // Rewound: rax is the number, and the instruction pointer is on the 2-byte `syscall`.
  return FiltersPermit(thread, SeccompDataOf(changed.Return(), changed, changed.Ip() + 2), false);
}

ExecuteAnswer NoDeferredOperation(SyscallContext& context) {
  CHESS_CHECK(false, "a family without deferred operations was asked to execute one");
  (void)context;
  return ExecuteAnswer::Native();
}

bool IoWaitReady(FdProbe& probe, pid_t tgid, const IoWait& wait) {
  for (size_t i = 0; i < wait.fds.size(); ++i) {
    const FdInterest& interest = wait.fds[i];
    const short revents = i < wait.held.size() ? wait.held[i].Poll(interest.events)
                                               : probe.Poll(tgid, interest.fd, interest.events);
    const bool ready = (revents & (interest.events | POLLERR | POLLHUP | POLLNVAL)) != 0;
    if (ready && !wait.needs_all) return true;
    if (!ready && wait.needs_all) return false;
  }
  return wait.needs_all;
}

ExecuteAnswer RunWhenFdsReady(SyscallContext& context) {
  Thread& thread = context.thread;
  const IoWait* wait = thread.wait ? thread.wait->Io() : nullptr;
  CHESS_CHECK(wait != nullptr, "a wait on descriptors without descriptors");
  if (IoWaitReady(context.services.Fds(), thread.process->tgid, *wait)) return ExecuteAnswer::Native();
  return ExecuteAnswer::Block();
}

FamilyHandler HandlerFor(seccomp::SyscallFamily family) {
#define CHESS_FAMILY_HANDLER(Name, ...) Name##Handler,
  // Indexed by SyscallFamily, as seccomp::kFamilies is.
  static constexpr FamilyHandler (*kHandlers[])() = {CHESS_SYSCALL_FAMILIES(CHESS_FAMILY_HANDLER)};
#undef CHESS_FAMILY_HANDLER
  static_assert(std::size(kHandlers) == seccomp::kFamilyCount);
  return kHandlers[static_cast<size_t>(family)]();
}

}  // namespace chess::supervisor
