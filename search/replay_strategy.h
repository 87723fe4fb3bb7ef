// ReplayStrategy: follows a recorded schedule decision by decision, and notices the moment the
// execution stops fitting it — a different thread stopped, at a different syscall, or the
// recorded choice cannot run — which ends the execution as a divergence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/strategy.h"

namespace chess::search {

// One scheduling decision as recorded: the situation the strategy saw and the thread it chose.
struct RecordedDecision {
  std::optional<ThreadId> current;  // the thread that ran last
  StopReason stop = StopReason::kReachedPoint;  // why it stopped running
  SchedulingPoint point;            // where it stopped (op, syscall, index)
  ThreadId picked;
  // The picked thread was not enabled: its deadline was fired ahead of time (design §3).
  bool fired_early = false;
};

// The decision a strategy made in `context`, as it is recorded.
RecordedDecision Decided(const SchedulingContext& context, ThreadId picked);

// Where an execution stopped fitting the schedule it replayed: the decision, what the recording
// had there, and what the replay found instead.
struct DivergencePoint {
  size_t decision = 0;
  std::optional<RecordedDecision> expected;  // none: the recording had ended there
  std::optional<ThreadId> found_thread;      // the thread that stopped there in the replay
  SchedulingPoint found_point;               // …and where (meaningful with found_thread)
  std::string message;                       // all of it in words, as Divergence() says it
};

class ReplayStrategy final : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<RecordedDecision> decisions) : decisions_(std::move(decisions)) {}

  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override;
  [[nodiscard]] std::optional<std::string> Divergence() const override {
    return divergence_ ? std::optional<std::string>(divergence_->message) : std::nullopt;
  }
  const std::optional<DivergencePoint>& Diverged() const { return divergence_; }
  // An execution that a strategy ended (a livelock, a spinning thread, the step limit) or the
  // clock ended (a timeout) ends the same way once its last decision is followed.
  void EndWith(StrategyVerdict verdict) { end_ = std::move(verdict); }
  [[nodiscard]] std::optional<StrategyVerdict> Verdict() const override {
    return end_ && next_ == decisions_.size() && !divergence_ ? end_ : std::nullopt;
  }
  [[nodiscard]] bool MayInterrupt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] bool InterruptedBefore(ThreadId thread, uint64_t points) const override {
    return MayInterrupt(thread, points);
  }
  [[nodiscard]] std::optional<bool> YieldsAt(ThreadId thread, uint64_t points) const override;
  [[nodiscard]] std::string Describe() const override { return "replay"; }

  // Decisions followed so far.
  size_t Followed() const { return next_; }
  size_t Recorded() const { return decisions_.size(); }
  const RecordedDecision& Recorded(size_t decision) const { return decisions_[decision]; }

 private:
  void Diverge(std::string why, const SchedulingContext& context);

  std::vector<RecordedDecision> decisions_;
  size_t next_ = 0;
  std::optional<DivergencePoint> divergence_;
  std::optional<StrategyVerdict> end_;
};

// "futex" for a syscall number is the supervisor's to name; search/ only knows numbers. The
// replay's messages use this hook when set (the CLI sets it).
using SyscallNamer = std::string (*)(int64_t syscall);
void SetSyscallNamer(SyscallNamer namer);
std::string NameSyscall(int64_t syscall);
// A sync operation the preload shim announced: "acquire 0x5555…", "release …", "read-lock …".
std::string DescribeSyncOp(const SchedulingPoint& point);
// Where a thread stopped, for messages: "in futex", "at acquire 0x…", "at its start".
std::string DescribePoint(const SchedulingPoint& point);

}  // namespace chess::search
