// nanosleep, clock_nanosleep: sleeps in the program's (virtual) time.
#include <sys/syscall.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

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
  return ctx.BlockUntil({SleepWait{}, deadline});
}


// A handler interrupts the sleep: it returns EINTR with the time that was left of it (the
// kernel, given the call afresh, would report the whole request as left).
SignalAnswer SleepInterrupted(SyscallContext& ctx, bool handled) {
  if (!handled || !ctx.thread.wait || !ctx.thread.wait->deadline) return SignalAnswer::Native();
  const bool is_nanosleep = ctx.thread.call.nr == SYS_nanosleep;
  const bool absolute = !is_nanosleep && (ctx.Arg(1) & TIMER_ABSTIME) != 0;
  const uint64_t remaining_address = is_nanosleep ? ctx.Arg(1) : ctx.Arg(3);
  if (!absolute && remaining_address != 0) {
    const int64_t left = std::max<int64_t>(*ctx.thread.wait->deadline - ctx.services.Time().Monotonic(), 0);
    const timespec remaining{static_cast<time_t>(left / kNanosPerSecond), static_cast<long>(left % kNanosPerSecond)};
    if (!ctx.Memory().Write(remaining_address, remaining)) return SignalAnswer::Complete(-EFAULT);
  }
  return SignalAnswer::Complete(-EINTR);
}

}  // namespace

FamilyHandler SleepHandler() { return {.on_entry = SleepEntry, .on_signal = SleepInterrupted}; }

}  // namespace chess::supervisor
