// clock_gettime, gettimeofday, time, getcpu in virtual time. The vDSO is hidden at every exec,
// so the C library makes these syscalls, and the supervisor answers them from its virtual
// clock. Each read moves virtual time by a little, so that successive reads increase and a loop
// waiting for the clock to pass a value ends. With real time the kernel answers.
#include <sys/syscall.h>
#include <sys/time.h>

#include <cerrno>

#include "supervisor/handler.h"

namespace chess::supervisor {
namespace {

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
  const pid_t pid = ~(clock >> 3);
  if (clock & kCpuClockPerThread) {
    const Thread* thread = pid == 0 ? &ctx.thread : threads.FindByProgramTid(pid);
    if (thread == nullptr) return std::nullopt;
    return thread->cpu_nanos;
  }
  const Process* process = pid == 0 ? ctx.thread.process : threads.FindByProgramPid(pid);
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

}  // namespace

FamilyHandler TimeHandler() { return {.on_entry = TimeEntry}; }

}  // namespace chess::supervisor
