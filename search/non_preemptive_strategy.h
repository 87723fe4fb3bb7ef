// NonPreemptiveStrategy: the natural schedule that `run` uses — a thread runs until it blocks,
// yields or exits; then the next enabled thread in creation order (cyclically after it) runs.
#pragma once

#include "search/strategy.h"

namespace chess::search {

class NonPreemptiveStrategy final : public Strategy {
 public:
  [[nodiscard]] ThreadId PickThread(const SchedulingContext& context) override;
  [[nodiscard]] std::string Describe() const override { return "non-preemptive"; }
};

}  // namespace chess::search
