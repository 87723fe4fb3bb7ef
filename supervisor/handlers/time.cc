// clock_gettime, gettimeofday, time, getcpu in virtual time. The vDSO is hidden at every exec,
// so the C library makes these syscalls, and the supervisor answers them from its virtual
// clock. Each read moves virtual time by a little, so that successive reads increase and a loop
// waiting for the clock to pass a value ends. With real time the kernel answers.
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>

#include <cerrno>

#include "supervisor/handlers/handler.h"

namespace chess::supervisor {
namespace {

// The clock ticks of times(2): USER_HZ, which the kernel fixes at 100 on x86_64.
constexpr int64_t kUserHz = 100;

// How far a clock read (or an rdtsc) moves virtual time.
constexpr int64_t kReadTick = 100;

// Linux encodes CPU-time clocks of other tasks in negative clock ids: ~pid << 3 | type, with
// bit 2 for a single thread and type 3 for a clock behind a file descriptor.
constexpr int kCpuClockTypeMask = 3;
constexpr int kCpuClockPerThread = 4;
constexpr int kClockFd = 3;

int64_t ProcessCpu(const ThreadTable& threads, const Process& process) {
  int64_t total = process.dead_threads_cpu_nanos;
  for (const auto& [id, thread] : threads.Live()) {
    if (thread->process == &process) total += thread->cpu_nanos;
  }
  return total;
}

// A CPU-time clock, as virtual time spent running. nullopt: not one the supervisor can answer.
std::optional<int64_t> CpuClock(SyscallContext& ctx, clockid_t clock) {
  ThreadTable& threads = ctx.services.Threads();
  if (clock == CLOCK_THREAD_CPUTIME_ID) return ctx.thread.cpu_nanos;
  if (clock == CLOCK_PROCESS_CPUTIME_ID) return ProcessCpu(threads, *ctx.thread.process);
  if (clock >= 0 || (clock & kCpuClockTypeMask) == kClockFd) return std::nullopt;
  const pid_t pid = ~(clock >> 3);  // as the caller names it, in its own pid namespace
  if (clock & kCpuClockPerThread) {
    const Thread* thread = pid == 0 ? &ctx.thread : threads.FindByProgramTid(pid, ctx.thread.process);
    if (thread == nullptr) return std::nullopt;
    return thread->cpu_nanos;
  }
  const Process* process = pid == 0 ? ctx.thread.process : threads.FindByProgramPid(pid, ctx.thread.process);
  if (process == nullptr) return std::nullopt;
  return ProcessCpu(threads, *process);
}

Disposition TimeEntry(SyscallContext& ctx) {
  const Clock& clock = ctx.services.Time();
  if (!clock.IsVirtual()) return Disposition::Native();
  const RemoteMemory memory = ctx.Memory();
  switch (ctx.thread.call.nr) {
    case SYS_clock_gettime: {
      const auto id = static_cast<clockid_t>(ctx.Arg(0));
      std::optional<int64_t> value = clock.Read(id);
      if (!value) value = CpuClock(ctx, id);
      if (!value) return Disposition::Native();  // a clock that does not exist: EINVAL
      ctx.services.AdvanceTime(kReadTick);
      const timespec ts{static_cast<time_t>(*value / kNanosPerSecond), static_cast<long>(*value % kNanosPerSecond)};
      return Disposition::Complete(memory.Write(ctx.Arg(1), ts) ? 0 : -EFAULT);
    }
    case SYS_gettimeofday: {
      const int64_t now = *clock.Read(CLOCK_REALTIME);
      ctx.services.AdvanceTime(kReadTick);
      const timeval tv{static_cast<time_t>(now / kNanosPerSecond), static_cast<suseconds_t>(now % kNanosPerSecond / 1000)};
      const struct timezone utc{0, 0};
      if (ctx.Arg(0) != 0 && !memory.Write(ctx.Arg(0), tv)) return Disposition::Complete(-EFAULT);
      if (ctx.Arg(1) != 0 && !memory.Write(ctx.Arg(1), utc)) return Disposition::Complete(-EFAULT);
      return Disposition::Complete(0);
    }
    case SYS_time: {
      const auto seconds = static_cast<time_t>(*clock.Read(CLOCK_REALTIME) / kNanosPerSecond);
      ctx.services.AdvanceTime(kReadTick);
      if (ctx.Arg(0) != 0 && !memory.Write(ctx.Arg(0), seconds)) return Disposition::Complete(-EFAULT);
      return Disposition::Complete(seconds);
    }
    case SYS_times: {
      // Clock ticks (USER_HZ, 100 a second) since an arbitrary point: the monotonic clock here.
      const int64_t tick = kNanosPerSecond / kUserHz;
      const int64_t cpu = ProcessCpu(ctx.services.Threads(), *ctx.thread.process);
      const struct tms usage{static_cast<clock_t>(cpu / tick), 0, 0, 0};
      if (ctx.Arg(0) != 0 && !memory.Write(ctx.Arg(0), usage)) return Disposition::Complete(-EFAULT);
      return Disposition::Complete(clock.Monotonic() / tick);
    }
    case SYS_getrusage:
    case SYS_sysinfo:
      // The kernel fills in memory and I/O; the times are put right on the way out.
      return Disposition::NativeThenExit();
    case SYS_getcpu: {
      // Every thread runs on one CPU under chess-trace; the program sees CPU 0 of node 0.
      const uint32_t zero = 0;
      if (ctx.Arg(0) != 0 && !memory.Write(ctx.Arg(0), zero)) return Disposition::Complete(-EFAULT);
      if (ctx.Arg(1) != 0 && !memory.Write(ctx.Arg(1), zero)) return Disposition::Complete(-EFAULT);
      return Disposition::Complete(0);
    }
    default:
      return Disposition::Native();
  }
}

timeval Timeval(int64_t nanos) {
  return {static_cast<time_t>(nanos / kNanosPerSecond), static_cast<suseconds_t>(nanos % kNanosPerSecond / 1000)};
}

ExitAnswer TimeExit(SyscallContext& ctx) {
  const int64_t result = ctx.thread.regs.Return();
  if (result != 0) return ExitAnswer::Complete(result);
  const RemoteMemory memory = ctx.Memory();
  if (ctx.thread.call.nr == SYS_sysinfo) {
    auto info = memory.Read<struct sysinfo>(ctx.Arg(0));
    if (info) {
      info->uptime = ctx.services.Time().Monotonic() / kNanosPerSecond;
      memory.Write(ctx.Arg(0), *info);
    }
    return ExitAnswer::Complete(0);
  }
  auto usage = memory.Read<rusage>(ctx.Arg(1));
  if (!usage) return ExitAnswer::Complete(0);
  int64_t cpu = 0;
  switch (static_cast<int>(ctx.Arg(0))) {
    case RUSAGE_SELF: cpu = ProcessCpu(ctx.services.Threads(), *ctx.thread.process); break;
    case RUSAGE_THREAD: cpu = ctx.thread.cpu_nanos; break;
    default: break;  // RUSAGE_CHILDREN: the reaped children's, not counted
  }
  usage->ru_utime = Timeval(cpu);
  usage->ru_stime = Timeval(0);
  memory.Write(ctx.Arg(1), *usage);
  return ExitAnswer::Complete(0);
}

}  // namespace

FamilyHandler TimeHandler() { return {.on_entry = TimeEntry, .on_exit = TimeExit}; }

}  // namespace chess::supervisor
