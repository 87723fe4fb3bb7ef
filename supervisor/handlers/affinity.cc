// sched_getaffinity, sched_setaffinity: emulated while chess-trace pins the tree to one CPU.
#include <sched.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The program sees the CPU mask it had before chess-trace pinned the tree to one CPU, so thread
// pools size themselves as they would natively.
Disposition AffinityEntry(SyscallContext& ctx) {
  const std::vector<uint8_t>& machine = ctx.services.VisibleAffinity();
  if (machine.empty()) return Disposition::Native();
  const auto pid = static_cast<pid_t>(ctx.Arg(0));
  // `pid` as the caller names it: in its own pid namespace, which the program may have made.
  Thread* target = pid == 0 ? &ctx.thread : ctx.services.Threads().FindByProgramTid(pid, ctx.thread.process);
  if (target == nullptr) return Disposition::Native();  // outside the tree: the kernel answers
  const uint64_t length = ctx.Arg(1);
  const uint64_t mask_address = ctx.Arg(2);
  const std::vector<uint8_t>& current = target->affinity.empty() ? machine : target->affinity;

  if (ctx.thread.call.nr == SYS_sched_getaffinity) {
    const auto possible = static_cast<uint64_t>(get_nprocs_conf());
    if (length * 8 < possible || length % sizeof(long) != 0) return Disposition::Complete(-EINVAL);
    const size_t copied = std::min<size_t>(length, current.size());
    if (!ctx.Memory().Write(mask_address, current.data(), copied)) return Disposition::Complete(-EFAULT);
    return Disposition::Complete(static_cast<int64_t>(copied));
  }
  std::vector<uint8_t> wanted(machine.size(), 0);
  const size_t readable = std::min<size_t>(length, wanted.size());
  if (!ctx.Memory().Read(mask_address, wanted.data(), readable)) return Disposition::Complete(-EFAULT);
  bool any = false;
  for (size_t i = 0; i < wanted.size(); ++i) {
    wanted[i] &= machine[i];
    any = any || wanted[i] != 0;
  }
  if (!any) return Disposition::Complete(-EINVAL);
  target->affinity = std::move(wanted);
  return Disposition::Complete(0);
}

}  // namespace

FamilyHandler AffinityHandler() { return {AffinityEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
