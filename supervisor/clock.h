// Clock: the time the program sees and that its deadlines are measured in. RealClock passes the
// machine's clocks through; VirtualClock is chess-trace's own, which advances only as the
// program makes progress and jumps over sleeps, so that runs repeat and sleeps cost nothing.
#pragma once

#include <time.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on `clock` (CLOCK_REALTIME, CLOCK_MONOTONIC, …); nullopt for a clock this
  // clock does not keep (CPU-time clocks of a real clock: the kernel answers those).
  virtual std::optional<int64_t> Read(clockid_t clock) const = 0;
  virtual bool IsVirtual() const = 0;

  MonoNanos Monotonic() const { return *Read(CLOCK_MONOTONIC); }
  // An absolute time on `clock` expressed as a CLOCK_MONOTONIC deadline.
  MonoNanos ToMonotonic(clockid_t clock, int64_t absolute) const;
};

class RealClock final : public Clock {
 public:
  std::optional<int64_t> Read(clockid_t clock) const override;
  bool IsVirtual() const override { return false; }
};

// Virtual time. CLOCK_MONOTONIC starts at a fixed value and moves forward only when the
// supervisor says so (a small tick per scheduling point and per clock read, a slice per
// backstop interrupt, a jump to the earliest deadline when nothing can run). CLOCK_REALTIME is
// the epoch plus the time elapsed; CPU-time clocks are not kept here (the supervisor counts
// them per thread).
class VirtualClock final : public Clock {
 public:
  // The monotonic clock's value when a run starts (a machine up for a while, as most are).
  static constexpr MonoNanos kStart = 1000 * kNanosPerSecond;

  explicit VirtualClock(int64_t epoch_realtime) : epoch_(epoch_realtime) {}

  std::optional<int64_t> Read(clockid_t clock) const override;
  bool IsVirtual() const override { return true; }

  void Advance(int64_t nanos) { now_ += nanos > 0 ? nanos : 0; }
  void AdvanceTo(MonoNanos when) { now_ = when > now_ ? when : now_; }
  int64_t Elapsed() const { return now_ - kStart; }
  int64_t Epoch() const { return epoch_; }
  // CLOCK_REALTIME (and TAI with it) reads `nanos` now; the monotonic clocks are not touched.
  void SetRealtime(int64_t nanos) { epoch_ = nanos - Elapsed(); }

 private:
  int64_t epoch_;
  MonoNanos now_ = kStart;
};

// The supervisor's two times: real time for its own timing (slices, the watchdog, hangs,
// scans), and the program's time, in which its deadlines are measured.
class SupervisorClocks {
 public:
  // `epoch`: the program's time is virtual, its CLOCK_REALTIME starting there (nanoseconds
  // since 1970); nullopt: the program sees the machine's clocks.
  explicit SupervisorClocks(std::optional<int64_t> epoch);

  MonoNanos WallNow() const { return wall_.Monotonic(); }
  // Real time as of the event being handled (or the decision being made): what the per-stop
  // path reads, so that a stop costs one clock read, not five.
  MonoNanos EventTime() const { return event_time_; }
  void RefreshEventTime() { event_time_ = WallNow(); }
  const Clock& Program() const { return *program_; }
  MonoNanos ProgramNow() const { return program_->Monotonic(); }
  // The program's clock when time is virtual, else null.
  VirtualClock* Virtual() const { return virtual_; }

 private:
  RealClock wall_;
  std::unique_ptr<Clock> program_;
  VirtualClock* virtual_ = nullptr;
  MonoNanos event_time_ = 0;
};

// The program's rdtsc traps (PR_TSC_SIGSEGV); chess-trace's own then does too. The kernel
// rewrites a control register (CR4.TSD) whenever it switches between a task that traps rdtsc
// and one that does not — on every ptrace stop — which in a virtual machine is an exit to the
// hypervisor and doubled the cost of a stop. chess-trace reads its clocks with syscalls; a
// stray rdtsc (a library's vDSO clock read) is answered by a SIGSEGV handler from the raw
// monotonic clock instead of crashing.
void TrapOwnTimestampCounter();
// Whether it did: chess-trace's clock reads are then syscalls instead of vDSO calls.
bool OwnTimestampCounterTrapped();

// Reads a struct timespec from the tracee. nullopt with `*error` = EFAULT or EINVAL when the
// pointer or the value is bad, as the kernel would answer.
std::optional<int64_t> ReadTimespec(const RemoteMemory& memory, uint64_t address, int* error);

}  // namespace chess::supervisor
