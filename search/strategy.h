// Strategy: the one place where scheduling decisions are made. The supervisor reports the
// situation at every scheduling point; the strategy names the thread that runs next.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "search/lock_dependency.h"
#include "search/outcome.h"
#include "search/scheduling_point.h"
#include "search/thread_id.h"

namespace chess::search {

// Why the thread that ran last stopped running, as far as scheduling cost is concerned:
// switching away after a block, exit or yield is free; switching away from a thread that could
// simply continue is a preemption.
enum class StopReason : uint8_t {
  kReachedPoint,  // stopped at a visible operation and may continue
  kYielded,       // sched_yield, a backstop interrupt, a sleep — wants others to run
  kBlocked,       // can no longer run until another thread acts
  kExited,        // gone
};
inline constexpr StopReason kLastStopReason = StopReason::kExited;

struct SchedulingContext {
  // Threads that can run now, in creation order. Never empty when a strategy is asked.
  std::span<const ThreadId> enabled;
  // Threads that wait for a deadline (a sleep, a timed wait) which a search may fire now, ahead
  // of the threads that could still run: picking one makes its time come (virtual time jumps to
  // its deadline). Empty for `run`, whose deadlines fire only when nothing else can run.
  std::span<const ThreadId> timed;
  // The thread that ran last; empty at the very first decision.
  std::optional<ThreadId> current;
  StopReason current_stop = StopReason::kReachedPoint;
  // Where the current thread stopped; meaningful only when `current` is set.
  SchedulingPoint point;
  // What threads stopped at lock acquisitions ask for, for the strategies that look (prediction);
  // null when nobody can tell (no preload shim, a model).
  LockRequests* locks = nullptr;
};

// A strategy that ends an execution itself says why: a livelock, a good-Samaritan violation, the
// step limit.
struct StrategyVerdict {
  Outcome outcome = Outcome::kStepLimit;
  std::string message;
};

// The questions the supervisor asks between scheduling points, about the liveness backstop and
// fairness's yields. Only a replay answers them otherwise than by default: it must interrupt and
// give way exactly where the execution it follows did. The defaults are the answers of a
// strategy that follows no recording.
class ReplayGuide {
 public:
  virtual ~ReplayGuide() = default;

  // Whether the backstop may interrupt `thread`, running since its `points`-th scheduling point,
  // after it used up its slice. A replay allows exactly the interrupts it recorded.
  [[nodiscard]] virtual bool MayInterrupt(ThreadId thread, uint64_t points) const {
    (void)thread;
    (void)points;
    return true;
  }

  // Whether `thread` gives way at its next syscall, its point number `points`, for fairness: a
  // replay answers as the recording did; nullopt leaves it to the slice and the syscall budget.
  [[nodiscard]] virtual std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const {
    (void)thread;
    (void)points;
    return std::nullopt;
  }

  // Whether the execution being replayed interrupted `thread` before its point number `points`
  // (the one it has just reached, sooner than the replay's slice timer fired).
  [[nodiscard]] virtual bool InterruptedBefore(ThreadId thread, uint64_t points) const {
    (void)thread;
    (void)points;
    return false;
  }
};

class Strategy : public ReplayGuide {
 public:
  // Called once before each execution of the program.
  virtual void BeginExecution() {}

  // Names the thread to run next: an element of `context.enabled`, or of `context.timed` to fire
  // that thread's deadline now.
  [[nodiscard]] virtual ThreadId PickThread(const SchedulingContext& context) = 0;

  // Set once the strategy can no longer follow the execution (a replay whose recorded schedule
  // does not fit what happens): the execution then ends as a divergence, with this message.
  [[nodiscard]] virtual std::optional<std::string> Divergence() const { return std::nullopt; }

  // Set when the strategy ends the execution after its last decision (the supervisor stops the
  // tree there): the outcome and a message for the report.
  [[nodiscard]] virtual std::optional<StrategyVerdict> Verdict() const { return std::nullopt; }

  // One line for reports and traces, e.g. "non-preemptive".
  [[nodiscard]] virtual std::string Describe() const = 0;
};

// A strategy that passes every call on to another: one that watches the calls (to keep the
// decisions, to tape them) overrides only what it watches, and still answers a replay's questions
// as the strategy it wraps does.
class ForwardingStrategy : public Strategy {
 public:
  explicit ForwardingStrategy(Strategy& inner) : inner_(inner) {}

  void BeginExecution() override { inner_.BeginExecution(); }
  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override { return inner_.PickThread(context); }
  [[nodiscard]] std::optional<std::string> Divergence() const override { return inner_.Divergence(); }
  [[nodiscard]] std::optional<StrategyVerdict> Verdict() const override { return inner_.Verdict(); }
  [[nodiscard]] bool MayInterrupt(ThreadId thread, uint64_t points) const override {
    return inner_.MayInterrupt(thread, points);
  }
  [[nodiscard]] std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const override {
    return inner_.YieldsAt(thread, points);
  }
  [[nodiscard]] bool InterruptedBefore(ThreadId thread, uint64_t points) const override {
    return inner_.InterruptedBefore(thread, points);
  }
  [[nodiscard]] std::string Describe() const override { return inner_.Describe(); }

 protected:
  Strategy& Inner() const { return inner_; }

 private:
  Strategy& inner_;
};

}  // namespace chess::search
