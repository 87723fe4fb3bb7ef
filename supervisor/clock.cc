#include "supervisor/clock.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>

namespace chess::supervisor {

SupervisorClocks::SupervisorClocks(std::optional<int64_t> epoch) {
  if (epoch) {
    auto clock = std::make_unique<VirtualClock>(*epoch);
    virtual_ = clock.get();
    program_ = std::move(clock);
  } else {
    program_ = std::make_unique<RealClock>();
  }
}
namespace {

// TAI runs ahead of UTC by the leap seconds so far (37 since 2017).
constexpr int64_t kTaiOffset = 37 * kNanosPerSecond;

bool g_own_timestamp_counter_trapped = false;
// SIGSEGV's action before chess-trace trapped its own rdtsc (the crash reporter's): every SIGSEGV
// that is not an rdtsc goes on to it.
struct sigaction g_previous_segv_action{};

// A SIGSEGV from an rdtsc or rdtscp of chess-trace itself: emulated, the instruction skipped.
void OnOwnTimestampCounter(int, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  auto* ip = reinterpret_cast<const unsigned char*>(uc->uc_mcontext.gregs[REG_RIP]);
  int length = 0;
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0x31) length = 2;
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0x01 && ip[2] == 0xf9) length = 3;
  if (length == 0) {
    // A real fault, or a SIGSEGV another process sent: what chess-trace did before it trapped
    // rdtsc. A default action kills us as it would have (a fault recurs when this returns).
    if ((g_previous_segv_action.sa_flags & SA_SIGINFO) != 0) {
      g_previous_segv_action.sa_sigaction(SIGSEGV, info, context);
    } else {
      signal(SIGSEGV, SIG_DFL);
      if (info->si_code <= 0) raise(SIGSEGV);
    }
    return;
  }
  timespec ts{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, &ts);
  const uint64_t counter = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
  uc->uc_mcontext.gregs[REG_RAX] = static_cast<greg_t>(counter & 0xffffffffu);
  uc->uc_mcontext.gregs[REG_RDX] = static_cast<greg_t>(counter >> 32);
  if (length == 3) uc->uc_mcontext.gregs[REG_RCX] = 0;
  uc->uc_mcontext.gregs[REG_RIP] += length;
}

}  // namespace

void TrapOwnTimestampCounter() {
  struct sigaction action{};
  action.sa_sigaction = OnOwnTimestampCounter;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  struct sigaction previous{};
  sigaction(SIGSEGV, &action, &previous);
  if (previous.sa_sigaction != OnOwnTimestampCounter) g_previous_segv_action = previous;  // once per execution
  g_own_timestamp_counter_trapped = prctl(PR_SET_TSC, PR_TSC_SIGSEGV) == 0;
}

bool OwnTimestampCounterTrapped() { return g_own_timestamp_counter_trapped; }

MonoNanos Clock::ToMonotonic(clockid_t clock, int64_t absolute) const {
  if (clock == CLOCK_MONOTONIC) return absolute;
  const std::optional<int64_t> now = Read(clock);
  if (!now) return absolute;
  return absolute - *now + Monotonic();
}

std::optional<int64_t> RealClock::Read(clockid_t clock) const {
  timespec ts{};
  // With rdtsc trapped in chess-trace itself the vDSO would fault: the syscall then.
  const int rc = OwnTimestampCounterTrapped() ? static_cast<int>(syscall(SYS_clock_gettime, clock, &ts))
                                              : clock_gettime(clock, &ts);
  if (rc != 0) return std::nullopt;
  return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}

std::optional<int64_t> VirtualClock::Read(clockid_t clock) const {
  switch (clock) {
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
      return now_;
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
      return epoch_ + Elapsed();
    case CLOCK_TAI:
      return epoch_ + Elapsed() + kTaiOffset;
    default:
      return std::nullopt;  // CPU-time clocks, and clock ids that do not exist
  }
}

std::optional<int64_t> ReadTimespec(const RemoteMemory& memory, uint64_t address, int* error) {
  auto ts = memory.Read<timespec>(address);
  if (!ts) {
    *error = EFAULT;
    return std::nullopt;
  }
  if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= kNanosPerSecond) {
    *error = EINVAL;
    return std::nullopt;
  }
  return static_cast<int64_t>(ts->tv_sec) * kNanosPerSecond + ts->tv_nsec;
}

}  // namespace chess::supervisor
