// alarm, getitimer/setitimer (ITIMER_REAL), the POSIX timers and timerfd settings, kept in
// virtual time. POSIX timers exist only in the supervisor (their ids are its own); a timerfd
// is the kernel's, left disarmed until its virtual expiry (see virtual_timers.h). ITIMER_VIRTUAL and
// ITIMER_PROF count CPU time and stay the kernel's. With real time the kernel keeps them all.
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The kernel's struct sigevent as timer_create reads it.
struct KernelSigevent {
  uint64_t value;
  int32_t signo;
  int32_t notify;
  int32_t thread;  // SIGEV_THREAD_ID
  int32_t pad[11];
};

constexpr int kSigevSignal = 0;
constexpr int kSigevNone = 1;
constexpr int kSigevThreadId = 4;

struct TimerSetting {
  int64_t value = 0;     // relative nanoseconds until the first expiry; 0 disarms
  int64_t interval = 0;
};

int64_t Nanos(const timespec& ts) { return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec; }
int64_t Nanos(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * kNanosPerSecond + static_cast<int64_t>(tv.tv_usec) * 1000;
}
timespec Timespec(int64_t nanos) {
  return {static_cast<time_t>(nanos / kNanosPerSecond), static_cast<long>(nanos % kNanosPerSecond)};
}
timeval Timeval(int64_t nanos) {
  // Rounded up, as the kernel does, so a timer that is armed never reads as zero.
  const int64_t micros = (nanos + 999) / 1000;
  return {static_cast<time_t>(micros / 1'000'000), static_cast<suseconds_t>(micros % 1'000'000)};
}

TimerSetting Current(const VirtualTimer& timer, MonoNanos now) {
  if (!timer.expires) return {};
  return {std::max<int64_t>(*timer.expires - now, 1), timer.interval};
}

void Arm(VirtualTimer& timer, const TimerSetting& setting, MonoNanos now) {
  timer.overrun = 0;
  timer.interval = setting.interval;
  if (setting.value <= 0) {
    timer.expires.reset();
  } else {
    timer.expires = now + setting.value;
  }
}

Disposition Alarm(SyscallContext& ctx, MonoNanos now) {
  VirtualTimer& timer = ctx.thread.process->alarm;
  const TimerSetting old = Current(timer, now);
  Arm(timer, {static_cast<int64_t>(static_cast<uint32_t>(ctx.Arg(0))) * kNanosPerSecond, 0}, now);
  timer.signal = SIGALRM;
  // Whole seconds left, rounded as the kernel rounds them (never 0 for an armed alarm).
  int64_t seconds = old.value / kNanosPerSecond;
  const int64_t rest = old.value % kNanosPerSecond;
  if ((seconds == 0 && rest > 0) || rest >= kNanosPerSecond / 2) ++seconds;
  return Disposition::Complete(seconds);
}

Disposition Itimer(SyscallContext& ctx, MonoNanos now) {
  if (ctx.Arg(0) != ITIMER_REAL) return Disposition::Native();  // CPU-time itimers
  const RemoteMemory memory = ctx.Memory();
  VirtualTimer& timer = ctx.thread.process->alarm;
  const TimerSetting old = Current(timer, now);
  const itimerval old_value{Timeval(old.interval), Timeval(old.value)};
  if (ctx.thread.call.nr == SYS_getitimer) {
    return Disposition::Complete(memory.Write(ctx.Arg(1), old_value) ? 0 : -EFAULT);
  }
  TimerSetting setting;
  if (ctx.Arg(1) != 0) {
    auto value = memory.Read<itimerval>(ctx.Arg(1));
    if (!value) return Disposition::Complete(-EFAULT);
    if (value->it_value.tv_usec < 0 || value->it_value.tv_usec >= 1'000'000 || value->it_interval.tv_usec < 0 ||
        value->it_interval.tv_usec >= 1'000'000) {
      return Disposition::Complete(-EINVAL);
    }
    setting = {Nanos(value->it_value), Nanos(value->it_interval)};
  }
  if (ctx.Arg(2) != 0 && !memory.Write(ctx.Arg(2), old_value)) return Disposition::Complete(-EFAULT);
  Arm(timer, setting, now);
  timer.signal = SIGALRM;
  return Disposition::Complete(0);
}

// Reads an itimerspec; an absolute first expiry on `clock` becomes relative to now.
std::optional<TimerSetting> ReadSetting(SyscallContext& ctx, uint64_t address, bool absolute, clockid_t clock,
                                        int* error) {
  auto spec = ctx.Memory().Read<itimerspec>(address);
  if (!spec) {
    *error = EFAULT;
    return std::nullopt;
  }
  if (spec->it_value.tv_nsec < 0 || spec->it_value.tv_nsec >= kNanosPerSecond || spec->it_value.tv_sec < 0 ||
      spec->it_interval.tv_nsec < 0 || spec->it_interval.tv_nsec >= kNanosPerSecond || spec->it_interval.tv_sec < 0) {
    *error = EINVAL;
    return std::nullopt;
  }
  TimerSetting setting{Nanos(spec->it_value), Nanos(spec->it_interval)};
  if (absolute && setting.value > 0) {
    const Clock& time = ctx.services.Time();
    // An expiry already past fires at once.
    setting.value = std::max<int64_t>(time.ToMonotonic(clock, setting.value) - time.Monotonic(), 1);
  }
  return setting;
}

Disposition WriteSetting(SyscallContext& ctx, uint64_t address, const TimerSetting& setting) {
  if (address == 0) return Disposition::Complete(0);
  const itimerspec spec{Timespec(setting.interval), Timespec(setting.value)};
  return Disposition::Complete(ctx.Memory().Write(address, spec) ? 0 : -EFAULT);
}

Disposition PosixTimer(SyscallContext& ctx, MonoNanos now) {
  Process& process = *ctx.thread.process;
  const int64_t nr = ctx.thread.call.nr;
  if (nr == SYS_timer_create) {
    const auto clock = static_cast<clockid_t>(ctx.Arg(0));
    if (!ctx.services.Time().Read(clock) && clock != CLOCK_PROCESS_CPUTIME_ID && clock != CLOCK_THREAD_CPUTIME_ID) {
      return Disposition::Complete(-EINVAL);
    }
    const int id = process.posix_timers.empty() ? 0 : process.posix_timers.rbegin()->first + 1;
    VirtualTimer timer;
    timer.signal = SIGALRM;
    timer.value = static_cast<uint64_t>(id);
    timer.id = id;
    if (ctx.Arg(1) != 0) {
      auto event = ctx.Memory().Read<KernelSigevent>(ctx.Arg(1));
      if (!event) return Disposition::Complete(-EFAULT);
      if (event->notify != kSigevSignal && event->notify != kSigevNone && event->notify != kSigevThreadId) {
        return Disposition::Complete(-EINVAL);
      }
      if (event->notify != kSigevNone && (event->signo <= 0 || event->signo > 64)) return Disposition::Complete(-EINVAL);
      timer.signal = event->notify == kSigevNone ? 0 : event->signo;
      timer.value = event->value;
      if (event->notify == kSigevThreadId) timer.thread = event->thread;
    }
    const int32_t id_out = id;
    if (!ctx.Memory().Write(ctx.Arg(2), id_out)) return Disposition::Complete(-EFAULT);
    process.posix_timers[id] = timer;
    return Disposition::Complete(0);
  }
  auto it = process.posix_timers.find(static_cast<int>(ctx.Arg(0)));
  if (it == process.posix_timers.end()) return Disposition::Complete(-EINVAL);
  VirtualTimer& timer = it->second;
  switch (nr) {
    case SYS_timer_settime: {
      int error = 0;
      auto setting = ReadSetting(ctx, ctx.Arg(2), (ctx.Arg(1) & TIMER_ABSTIME) != 0, CLOCK_MONOTONIC, &error);
      if (!setting) return Disposition::Complete(-error);
      const Disposition old = WriteSetting(ctx, ctx.Arg(3), Current(timer, now));
      if (old.value != 0) return old;
      Arm(timer, *setting, now);
      return Disposition::Complete(0);
    }
    case SYS_timer_gettime: return WriteSetting(ctx, ctx.Arg(1), Current(timer, now));
    case SYS_timer_getoverrun: return Disposition::Complete(timer.delivered_overrun);
    default:  // timer_delete
      process.posix_timers.erase(it);
      return Disposition::Complete(0);
  }
}

Disposition TimerFd(SyscallContext& ctx, MonoNanos now) {
  const int fd = static_cast<int>(ctx.Arg(0));
  Process& process = *ctx.thread.process;
  // Anything but a timerfd is the kernel's to refuse (EBADF, EINVAL).
  if (FdTarget(process.tgid, fd) != "anon_inode:[timerfd]") return Disposition::Native();
  VirtualTimer& timer = process.timerfds[fd];
  if (ctx.thread.call.nr == SYS_timerfd_gettime) return WriteSetting(ctx, ctx.Arg(1), Current(timer, now));
  // TFD_TIMER_ABSTIME counts on the timerfd's own clock, which is not known here: the
  // monotonic clock, as most programs use.
  int error = 0;
  auto setting = ReadSetting(ctx, ctx.Arg(2), (ctx.Arg(1) & TFD_TIMER_ABSTIME) != 0, CLOCK_MONOTONIC, &error);
  if (!setting) return Disposition::Complete(-error);
  const Disposition old = WriteSetting(ctx, ctx.Arg(3), Current(timer, now));
  if (old.value != 0) return old;
  Arm(timer, *setting, now);
  timer.signal = 0;
  return Disposition::Complete(0);
}

Disposition TimerEntry(SyscallContext& ctx) {
  const Clock& clock = ctx.services.Time();
  if (!clock.IsVirtual()) return Disposition::Native();
  const MonoNanos now = clock.Monotonic();
  switch (ctx.thread.call.nr) {
    case SYS_alarm: return Alarm(ctx, now);
    case SYS_getitimer:
    case SYS_setitimer: return Itimer(ctx, now);
    case SYS_timerfd_settime:
    case SYS_timerfd_gettime: return TimerFd(ctx, now);
    default: return PosixTimer(ctx, now);
  }
}

}  // namespace

void TimerSignalTakenByWait(SyscallContext& ctx, uint64_t info_address) {
  const RemoteMemory memory = ctx.Memory();
  auto info = memory.Read<siginfo_t>(info_address);
  if (info && ctx.thread.process->TakeTimerSignal(*info)) memory.Write(info_address, *info);
}

FamilyHandler TimerHandler() { return {.on_entry = TimerEntry}; }

}  // namespace chess::supervisor
