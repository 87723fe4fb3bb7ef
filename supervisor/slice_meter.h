// SliceMeter: how much of its turn the running thread has used — the slice of CPU time that
// makes it give way (fairness), the syscall budget, and the watchdog's judgement of a thread
// that must be interrupted where it is: spinning without a trapped syscall, or asleep in the
// kernel in a call the supervisor does not model (design §3, the liveness backstop).
//
// It only counts and judges: the supervisor reads the clocks and the CPU time and hands them
// in, so that the judgements can be tested with made-up readings. Every method is inline: the
// meter is consulted at every stop.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "supervisor/thread_table.h"

namespace chess::supervisor {

// How long a thread may sleep in the kernel, in a syscall the supervisor does not model, before
// the watchdog lets other threads run.
inline constexpr int64_t kWatchdogNanos = 2'000'000;
// A thread that makes this many syscalls in a row without blocking or yielding gives the others
// a turn (a deterministic stand-in for a time slice).
inline constexpr uint64_t kSyscallBudget = 2'000;
// A thread that makes no trapped syscall for this many slices of CPU time while others could
// run is interrupted where it is (a spin on plain memory).
inline constexpr int64_t kSilentSlices = 3;

// The CPU time a process has used, in nanoseconds; nullopt when the kernel does not say.
std::optional<int64_t> ProcessCpuNanos(pid_t tgid);

class SliceMeter {
 public:
  SliceMeter() = default;
  explicit SliceMeter(int64_t slice_nanos) : slice_nanos_(slice_nanos) {}

  // The execution's first thread has the CPU from `now`. An execution forked from a template
  // carries on with the prefix's turn (its syscall count, a yield due), but CPU times read in
  // the template's process, or an interrupt asked of it, mean nothing in the new one.
  void Begin(MonoNanos now) {
    switched_in_ = now;
    slice_cpu_start_ = -1;
    silent_cpu_start_ = -1;
    silent_cpu_ = 0;
    asleep_looks_ = 0;
    alone_turn_.reset();
    interrupted_dispatch_ = ~uint64_t{0};
  }
  // A thread is resumed after a switch, a yield or a block (never merely after a scheduling
  // point): its slice and its syscall budget start again. `cpu`, its process's CPU time now when
  // it was read: a turn shorter than the first look (AloneUntil) is counted from here; otherwise
  // from the first look.
  void SwitchedIn(MonoNanos now, std::optional<int64_t> cpu = std::nullopt) {
    switched_in_ = now;
    alone_turn_.reset();
    syscalls_since_switch_ = 0;
    slice_cpu_start_ = cpu.value_or(-1);
    silent_cpu_start_ = cpu.value_or(-1);
    silent_cpu_ = 0;
    yield_due_ = false;
    asleep_looks_ = 0;
  }
  MonoNanos SwitchedInAt() const { return switched_in_; }

  // Whether the watchdog looks at the running thread yet: it looks sooner than a slice, since
  // a thread asleep in the kernel is not using the CPU and everyone else would wait for nothing.
  bool DueForLook(MonoNanos now) const {
    return now - switched_in_ >= std::min<int64_t>(kWatchdogNanos, Turn());
  }
  // Before a look: whether the running thread is alone while a deadline waits for time to pass
  // — `until`, the virtual time to the earliest deadline — or nullopt: others could run. Alone,
  // its turn is that much CPU time, a slice at most, and when it has used it without reaching a
  // syscall it is interrupted where it is: no one waits for its syscall, only time, which moves
  // a slice per slice of its CPU time (ComputedSlice), so that the deadline comes
  // after as much computing as natively.
  void AloneUntil(std::optional<int64_t> until) {
    alone_turn_ = until ? std::optional(std::clamp<int64_t>(*until, 0, slice_nanos_)) : std::nullopt;
  }
  // The virtual time a slice of CPU that a lone thread computed moves, `now` being the program's
  // virtual time and `earliest_deadline` the earliest deadline of a sleeper or a timer: a slice,
  // but never past that deadline — which then comes after as much computing as natively — and
  // nothing once it is due (the decision fires it). With no deadline, a whole slice.
  int64_t ComputedSlice(std::optional<MonoNanos> earliest_deadline, MonoNanos now) const {
    if (!earliest_deadline) return slice_nanos_;
    return std::clamp<int64_t>(*earliest_deadline - now, 0, slice_nanos_);
  }
  // A look at `cpu`, the CPU time of the running thread's process: whether the slice is used
  // up. CPU time, not wall time, so that a machine busy with other work does not cut slices
  // short; counted from the first look after the switch, so at most a tick late.
  bool SliceUsed(int64_t cpu) {
    if (slice_cpu_start_ < 0) slice_cpu_start_ = cpu;
    // Time spent without a single trapped syscall: only a thread that never reaches one is
    // interrupted where it happens to be (see Stuck).
    if (silent_cpu_start_ < 0 || syscalls_since_switch_ != syscalls_at_last_look_) silent_cpu_start_ = cpu;
    syscalls_at_last_look_ = syscalls_since_switch_;
    silent_cpu_ = cpu - silent_cpu_start_;
    return cpu - slice_cpu_start_ >= Turn();
  }
  // The thread gives way at its next syscall.
  void YieldAtNextSyscall() { yield_due_ = true; }
  // After a look (SliceUsed), with `asleep`: whether the thread is asleep in the kernel now.
  // Whether it must be interrupted where it is: silent for kSilentSlices slices (alone, for its
  // turn), or asleep at
  // two looks in a row — a loaded machine shows a running thread asleep for a moment (a page
  // fault's I/O, a kernel lock), and an interrupt there would be one no replay repeats.
  bool Stuck(bool asleep) {
    asleep_looks_ = asleep ? asleep_looks_ + 1 : 0;
    return silent_cpu_ >= alone_turn_.value_or(kSilentSlices * slice_nanos_) || asleep_looks_ >= 2;
  }
  // The running thread reached a trapped syscall: whether its turn is over there (its slice
  // used up, or kSyscallBudget syscalls made since it was switched in).
  bool CountSyscall() {
    ++syscalls_since_switch_;
    return yield_due_ || syscalls_since_switch_ >= kSyscallBudget;
  }

  // The backstop interrupt was asked for while the tree had made `dispatch` dispatches; an
  // interrupt stop in a later turn is stale.
  void InterruptAsked(uint64_t dispatch) { interrupted_dispatch_ = dispatch; }
  bool InterruptAskedIn(uint64_t dispatch) const { return interrupted_dispatch_ == dispatch; }

 private:
  int64_t Turn() const { return alone_turn_.value_or(slice_nanos_); }

  int64_t slice_nanos_ = 0;
  std::optional<int64_t> alone_turn_;   // alone while a deadline waits: the CPU time to it
  MonoNanos switched_in_ = 0;           // when the running thread got the CPU: the slice starts here
  uint64_t syscalls_since_switch_ = 0;  // its trapped syscalls since then
  int64_t slice_cpu_start_ = -1;        // its process's CPU time when the slice was first looked at
  int64_t silent_cpu_start_ = -1;       // …when it was last seen to have made a trapped syscall
  uint64_t syscalls_at_last_look_ = 0;
  int64_t silent_cpu_ = 0;              // CPU time since then
  bool yield_due_ = false;              // the slice is used up: give way at the next syscall
  int asleep_looks_ = 0;                // looks in a row that found the thread asleep in the kernel
  uint64_t interrupted_dispatch_ = ~uint64_t{0};  // the dispatch when the backstop was asked for
};

}  // namespace chess::supervisor
