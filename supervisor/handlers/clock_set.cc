// clock_settime, settimeofday, adjtimex, clock_adjtime in virtual time. The program's clock is
// the supervisor's, so reading it through adjtimex gives the virtual time too, and setting it
// moves the program's CLOCK_REALTIME and never the host's. What the program may do is the
// kernel's decision: the permission check is the kernel's own (settimeofday(NULL, NULL), which
// checks CAP_SYS_TIME in the initial user namespace and changes nothing), and the argument
// checks follow the kernel's, in its order, so that a program sees the errors it sees natively.
// With real time the kernel answers, and a privileged program sets the host's clock.
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>

#include <cerrno>
#include <climits>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The kernel's bounds (include/linux/time64.h): a settable time leaves 30 years of uptime
// before the 64-bit nanosecond clock overflows.
constexpr int64_t kSettableSecondsMax = LLONG_MAX / kNanosPerSecond - 30LL * 365 * 86400;
// ADJ_FREQUENCY's bound on 64-bit kernels (kernel/time/timekeeping.c): freq * PPM_SCALE fits.
constexpr long kPpmScale = 1000L << 16;
// The kernel's adjtime() bits of timex.modes (userspace spells them ADJ_OFFSET_SINGLESHOT =
// 0x8001 and ADJ_OFFSET_SS_READ = 0xa001).
constexpr unsigned kAdjAdjtime = 0x8000;
constexpr unsigned kAdjSingleshotBit = 0x0001;
constexpr unsigned kAdjReadonlyBit = 0x2000;
// The tick's bounds, in microseconds: the quartz within 10 % of USER_HZ (100).
constexpr long kTickMin = 900000 / 100;
constexpr long kTickMax = 1100000 / 100;
constexpr int kMinutesWestMax = 15 * 60;

bool Settable(int64_t seconds, int64_t nanos) {
  return seconds >= 0 && seconds <= kSettableSecondsMax && nanos >= 0 && nanos < kNanosPerSecond;
}

bool IsAdjtime(const timex& tx) { return (tx.modes & kAdjAdjtime) != 0; }

// A change needs CAP_SYS_TIME; adjtime's read-only mode and a plain read do not.
bool AdjustWrites(const timex& tx) {
  const bool writes = IsAdjtime(tx) ? (tx.modes & kAdjReadonlyBit) == 0 : tx.modes != 0;
  return writes || (tx.modes & ADJ_SETOFFSET) != 0;
}

// The timex a call adjusts: adjtimex's only argument, clock_adjtime's second.
uint64_t TimexAddress(const SyscallContext& ctx) {
  return ctx.thread.call.nr == SYS_adjtimex ? ctx.Arg(0) : ctx.Arg(1);
}

// The time a read of the clock state reports, in the unit its status says.
void PutVirtualTime(timex& tx, int64_t realtime) {
  tx.time.tv_sec = realtime / kNanosPerSecond;
  const int64_t nanos = realtime % kNanosPerSecond;
  tx.time.tv_usec = (tx.status & STA_NANO) != 0 ? nanos : nanos / 1000;
}

// The host's clock state (frequency, status, leap second, TAI offset: the kernel's) with the
// virtual time, written to the program as the kernel would; the call's result is the state. The
// supervisor reads it with a request that only reads, whatever the program's asked.
int64_t AnswerClockState(SyscallContext& ctx, timex request) {
  const unsigned modes = request.modes;
  request.modes = IsAdjtime(request) ? ADJ_OFFSET_SS_READ : 0;
  const int state = ::adjtimex(&request);
  if (state < 0) return -errno;
  request.modes = modes;
  PutVirtualTime(request, *ctx.services.Time().Read(CLOCK_REALTIME));
  return ctx.Memory().Write(TimexAddress(ctx), request) ? state : -EFAULT;
}

// The kernel's checks of a request after its permission check (timekeeping_validate_timex).
int LaterAdjustChecks(const timex& tx) {
  if (!IsAdjtime(tx) && (tx.modes & ADJ_TICK) != 0 && (tx.tick < kTickMin || tx.tick > kTickMax)) return EINVAL;
  const int64_t unit = (tx.modes & ADJ_NANO) != 0 ? 1 : 1000;
  if ((tx.modes & ADJ_SETOFFSET) != 0 && (tx.time.tv_usec < 0 || tx.time.tv_usec >= kNanosPerSecond / unit)) {
    return EINVAL;
  }
  if ((tx.modes & ADJ_FREQUENCY) != 0 && (tx.freq < LONG_MIN / kPpmScale || tx.freq > LONG_MAX / kPpmScale)) {
    return EINVAL;
  }
  return 0;
}

// The kernel's own permission check, at the call's exit: the call becomes settimeofday(NULL,
// NULL). Without it (a filter of the program's would refuse it) the change is refused.
Disposition AskTheKernelsPermission(SyscallContext& ctx) {
  Registers changed = ctx.thread.regs;
  changed.SetSyscallNr(SYS_settimeofday);
  changed.SetArg(0, 0);
  changed.SetArg(1, 0);
  if (!ctx.FiltersPermitChange(changed)) return Disposition::Complete(-EPERM);
  ctx.thread.regs = changed;
  return Disposition::NativeThenExit();
}

// Realtime becomes `target` unless that lies before the monotonic clock (the kernel keeps
// realtime after boot: EINVAL).
int64_t SetRealtime(SyscallContext& ctx, int64_t target) {
  if (target < ctx.services.Time().Monotonic()) return -EINVAL;
  ctx.services.SetRealtime(target);
  return 0;
}

Disposition AdjustEntry(SyscallContext& ctx) {
  const auto tx = ctx.Memory().Read<timex>(TimexAddress(ctx));
  if (!tx) return Disposition::Complete(-EFAULT);
  if (IsAdjtime(*tx) && (tx->modes & kAdjSingleshotBit) == 0) return Disposition::Complete(-EINVAL);
  if (AdjustWrites(*tx)) return AskTheKernelsPermission(ctx);
  if (const int error = LaterAdjustChecks(*tx); error != 0) return Disposition::Complete(-error);
  return Disposition::Complete(AnswerClockState(ctx, *tx));
}

// After the permission: the kernel's remaining checks, then the change in virtual time. Only
// ADJ_SETOFFSET moves the clock; frequency, offset and tick adjustments slew a clock that, in
// virtual time, does not drift: they are accepted and have no effect.
int64_t AdjustPermitted(SyscallContext& ctx) {
  const auto tx = ctx.Memory().Read<timex>(TimexAddress(ctx));
  if (!tx) return -EFAULT;
  if (const int error = LaterAdjustChecks(*tx); error != 0) return -error;
  if ((tx->modes & ADJ_SETOFFSET) != 0) {
    const int64_t unit = (tx->modes & ADJ_NANO) != 0 ? 1 : 1000;
    const int64_t target = *ctx.services.Time().Read(CLOCK_REALTIME) +
                           static_cast<int64_t>(tx->time.tv_sec) * kNanosPerSecond + tx->time.tv_usec * unit;
    if (!Settable(target / kNanosPerSecond, target % kNanosPerSecond)) return -EINVAL;
    if (const int64_t error = SetRealtime(ctx, target); error != 0) return error;
  }
  return AnswerClockState(ctx, *tx);
}

Disposition SettimeEntry(SyscallContext& ctx) {
  int error = 0;
  const std::optional<int64_t> target = ReadTimespec(ctx.Memory(), ctx.Arg(1), &error);
  if (error == EFAULT) return Disposition::Complete(-EFAULT);
  if (!target || *target / kNanosPerSecond > kSettableSecondsMax) return Disposition::Complete(-EINVAL);
  return AskTheKernelsPermission(ctx);
}

Disposition SettimeofdayEntry(SyscallContext& ctx) {
  const RemoteMemory memory = ctx.Memory();
  if (ctx.Arg(0) != 0) {
    const auto tv = memory.Read<timeval>(ctx.Arg(0));
    if (!tv) return Disposition::Complete(-EFAULT);
    // The kernel lets tv_usec be 1000000 through its first check, and not its second.
    if (tv->tv_usec < 0 || tv->tv_usec > 1000000) return Disposition::Complete(-EINVAL);
    if (ctx.Arg(1) != 0 && !memory.Read<struct timezone>(ctx.Arg(1))) return Disposition::Complete(-EFAULT);
    if (!Settable(tv->tv_sec, static_cast<int64_t>(tv->tv_usec) * 1000)) return Disposition::Complete(-EINVAL);
  } else if (ctx.Arg(1) != 0 && !memory.Read<struct timezone>(ctx.Arg(1))) {
    return Disposition::Complete(-EFAULT);
  }
  return AskTheKernelsPermission(ctx);
}

// After the permission. The time zone is checked and otherwise ignored: the program keeps
// reading UTC (gettimeofday answers a zero time zone), and the host's stays as it was.
int64_t SettimeofdayPermitted(SyscallContext& ctx) {
  const RemoteMemory memory = ctx.Memory();
  if (ctx.Arg(1) != 0) {
    const auto tz = memory.Read<struct timezone>(ctx.Arg(1));
    if (!tz) return -EFAULT;
    if (tz->tz_minuteswest > kMinutesWestMax || tz->tz_minuteswest < -kMinutesWestMax) return -EINVAL;
  }
  if (ctx.Arg(0) == 0) return 0;
  const auto tv = memory.Read<timeval>(ctx.Arg(0));
  if (!tv) return -EFAULT;
  return SetRealtime(ctx, static_cast<int64_t>(tv->tv_sec) * kNanosPerSecond + tv->tv_usec * 1000);
}

Disposition ClockSetEntry(SyscallContext& ctx) {
  if (!ctx.services.Time().IsVirtual()) return Disposition::Native();
  switch (ctx.thread.call.nr) {
    case SYS_adjtimex:
      return AdjustEntry(ctx);
    case SYS_settimeofday:
      return SettimeofdayEntry(ctx);
    case SYS_clock_settime:
    case SYS_clock_adjtime:
      // Only CLOCK_REALTIME can be set or adjusted; for the others the kernel answers (EINVAL,
      // EOPNOTSUPP, EPERM for a CPU-time clock) — and a PTP device's clock is that device's.
      if (static_cast<clockid_t>(ctx.Arg(0)) != CLOCK_REALTIME) return Disposition::Native();
      return ctx.thread.call.nr == SYS_clock_settime ? SettimeEntry(ctx) : AdjustEntry(ctx);
    default:
      return Disposition::Native();
  }
}

// At the exit of the permission check: its refusal is the call's; otherwise the change is made
// in virtual time. The call's own number and arguments are put back, as the kernel leaves them.
ExitAnswer ClockSetExit(SyscallContext& ctx) {
  Thread& thread = ctx.thread;
  const int64_t permission = thread.regs.Return();
  thread.regs.SetSyscallNr(thread.call.nr);
  thread.regs.SetArg(0, thread.call.args[0]);
  thread.regs.SetArg(1, thread.call.args[1]);
  if (permission != 0) return ExitAnswer::Complete(permission);
  switch (thread.call.nr) {
    case SYS_settimeofday:
      return ExitAnswer::Complete(SettimeofdayPermitted(ctx));
    case SYS_clock_settime: {
      int error = 0;
      const std::optional<int64_t> target = ReadTimespec(ctx.Memory(), ctx.Arg(1), &error);
      return ExitAnswer::Complete(target ? SetRealtime(ctx, *target) : -error);
    }
    default:
      return ExitAnswer::Complete(AdjustPermitted(ctx));
  }
}

}  // namespace

FamilyHandler ClockSetHandler() { return {.on_entry = ClockSetEntry, .on_exit = ClockSetExit}; }

}  // namespace chess::supervisor
