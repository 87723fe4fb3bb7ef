// sched_yield, sleeps and CPU affinity: the calls through which a program talks to the
// scheduler, which under chess-trace is the supervisor.
#include <sched.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cerrno>

#include "supervisor/handler.h"

namespace chess::supervisor {
namespace {

Disposition YieldEntry(SyscallContext&) { return Disposition::Yield(0); }

bool SleepableClock(uint64_t clock) {
  return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME ||
         clock == CLOCK_TAI;
}

// A sleeping thread is disabled until its deadline; when nothing else can run the supervisor
// waits for the earliest deadline, so sleepers wake in deadline order.
Disposition SleepEntry(SyscallContext& ctx) {
  const bool absolute_call = ctx.thread.call.nr == SYS_clock_nanosleep;
  clockid_t clock = CLOCK_MONOTONIC;
  bool absolute = false;
  uint64_t request = ctx.Arg(0);
  if (absolute_call) {
    if (!SleepableClock(ctx.Arg(0))) return Disposition::Native();  // CPU-time clocks
    clock = static_cast<clockid_t>(ctx.Arg(0));
    absolute = (ctx.Arg(1) & TIMER_ABSTIME) != 0;
    request = ctx.Arg(2);
  }
  int error = 0;
  auto ns = ReadTimespec(ctx.Memory(), request, &error);
  if (!ns) return Disposition::Complete(-error);
  const Clock& time = ctx.services.Time();
  const MonoNanos deadline = absolute ? time.ToMonotonic(clock, *ns) : time.Monotonic() + *ns;
  return ctx.BlockUntil(deadline, 0);
}

// The program sees the CPU mask it had before chess-trace pinned the tree to one CPU, so thread
// pools size themselves as they would natively.
Disposition AffinityEntry(SyscallContext& ctx) {
  const std::vector<uint8_t>& machine = ctx.services.VisibleAffinity();
  if (machine.empty()) return Disposition::Native();
  const auto pid = static_cast<pid_t>(ctx.Arg(0));
  Thread* target = pid == 0 ? &ctx.thread : ctx.services.Threads().FindByProgramTid(pid);
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

FamilyHandler YieldHandler() { return {YieldEntry, NoDeferredOperation}; }
// A handler interrupts the sleep: it returns EINTR with the time that was left of it (the
// kernel, given the call afresh, would report the whole request as left).
Disposition SleepInterrupted(SyscallContext& ctx, bool handled) {
  if (!handled || !ctx.thread.deadline) return Disposition::Native();
  const bool is_nanosleep = ctx.thread.call.nr == SYS_nanosleep;
  const bool absolute = !is_nanosleep && (ctx.Arg(1) & TIMER_ABSTIME) != 0;
  const uint64_t remaining_address = is_nanosleep ? ctx.Arg(1) : ctx.Arg(3);
  if (!absolute && remaining_address != 0) {
    const int64_t left = std::max<int64_t>(*ctx.thread.deadline - ctx.services.Time().Monotonic(), 0);
    const timespec remaining{static_cast<time_t>(left / kNanosPerSecond), static_cast<long>(left % kNanosPerSecond)};
    if (!ctx.Memory().Write(remaining_address, remaining)) return Disposition::Complete(-EFAULT);
  }
  return Disposition::Complete(-EINTR);
}

FamilyHandler SleepHandler() { return {.on_entry = SleepEntry, .on_signal = SleepInterrupted}; }
FamilyHandler AffinityHandler() { return {AffinityEntry, NoDeferredOperation}; }

}  // namespace chess::supervisor
