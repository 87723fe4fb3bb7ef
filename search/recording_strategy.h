// RecordingStrategy: another strategy decides; every decision is kept in memory as a replay
// needs it (the in-memory counterpart of a trace's decision records).
#pragma once

#include <vector>

#include "search/replay_strategy.h"

namespace chess::search {

class RecordingStrategy final : public Strategy {
 public:
  explicit RecordingStrategy(Strategy& inner) : inner_(inner) {}

  void BeginExecution() override {
    decisions_.clear();
    inner_.BeginExecution();
  }
  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override {
    const ThreadId picked = inner_.PickThread(context);
    decisions_.push_back(Decided(context, picked));
    return picked;
  }
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

  const std::vector<RecordedDecision>& Decisions() const { return decisions_; }

 private:
  Strategy& inner_;
  std::vector<RecordedDecision> decisions_;
};

}  // namespace chess::search
