// RecordingStrategy: another strategy decides; every decision is kept in memory as a replay
// needs it (the in-memory counterpart of a trace's decision records).
#pragma once

#include <vector>

#include "search/replay_strategy.h"

namespace chess::search {

class RecordingStrategy final : public ForwardingStrategy {
 public:
  explicit RecordingStrategy(Strategy& inner) : ForwardingStrategy(inner) {}

  void BeginExecution() override {
    decisions_.clear();
    ForwardingStrategy::BeginExecution();
  }
  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override {
    const ThreadId picked = ForwardingStrategy::PickThread(context);
    decisions_.push_back(Decided(context, picked));
    return picked;
  }

  const std::vector<RecordedDecision>& Decisions() const { return decisions_; }

 private:
  std::vector<RecordedDecision> decisions_;
};

}  // namespace chess::search
