// --focus's narrowing of a decision's choices (search/focus.h).
#include "search/focus.h"

#include <gtest/gtest.h>

#include <set>

namespace chess::search {
namespace {

ThreadId T(uint32_t id) { return ThreadId{id}; }

struct Decision {
  std::vector<ThreadId> enabled;
  std::vector<ThreadId> timed;
  std::optional<ThreadId> current;
  StopReason stop = StopReason::kReachedPoint;

  FocusedChoices NarrowTo(std::set<uint32_t> focused) const {
    SchedulingContext context;
    context.enabled = enabled;
    context.timed = timed;
    context.current = current;
    context.current_stop = stop;
    return NarrowToFocus(context, [focused](ThreadId t) { return focused.contains(t.value); });
  }
};

TEST(NarrowToFocus, AnUnfocusedThreadThatCanGoOnIsNotPreempted) {
  const Decision d{{T(0), T(1), T(2)}, {T(2)}, T(0), StopReason::kReachedPoint};
  const FocusedChoices choices = d.NarrowTo({1, 2});
  EXPECT_EQ(choices.enabled, std::vector<ThreadId>{T(0)});
  EXPECT_TRUE(choices.timed.empty());
}

TEST(NarrowToFocus, FocusedThreadsKeepEveryChoice) {
  const Decision d{{T(0), T(1), T(2)}, {T(1)}, T(1), StopReason::kReachedPoint};
  const FocusedChoices choices = d.NarrowTo({0, 1, 2});
  EXPECT_EQ(choices.enabled, (std::vector<ThreadId>{T(0), T(1), T(2)}));
  EXPECT_EQ(choices.timed, std::vector<ThreadId>{T(1)});
}

TEST(NarrowToFocus, AfterAFreeSwitchOneUnfocusedThreadStandsForAll) {
  // Thread 3 (unfocused) blocked: the focused 1 and the first unfocused one, 0, are offered;
  // 2 and 4 are not, and no unfocused deadline is fired early.
  const Decision d{{T(0), T(1), T(2), T(4)}, {T(2), T(1)}, T(3), StopReason::kBlocked};
  const FocusedChoices choices = d.NarrowTo({1});
  EXPECT_EQ(choices.enabled, (std::vector<ThreadId>{T(0), T(1)}));
  EXPECT_EQ(choices.timed, std::vector<ThreadId>{T(1)});
}

TEST(NarrowToFocus, AFocusedThreadAtAPointMayBePreemptedByTheRepresentative) {
  const Decision d{{T(0), T(1), T(2)}, {}, T(1), StopReason::kReachedPoint};
  EXPECT_EQ(d.NarrowTo({1}).enabled, (std::vector<ThreadId>{T(0), T(1)}));
}

TEST(NarrowToFocus, NeverEmptyWhenSomethingCanRun) {
  const Decision first{{T(0)}, {}, std::nullopt, StopReason::kReachedPoint};
  EXPECT_EQ(first.NarrowTo({7}).enabled, std::vector<ThreadId>{T(0)});
  const Decision unfocused_yield{{T(3), T(5)}, {}, T(3), StopReason::kYielded};
  EXPECT_EQ(unfocused_yield.NarrowTo({}).enabled, std::vector<ThreadId>{T(3)});
}

}  // namespace
}  // namespace chess::search
