// The tape a fork server's template keeps: every strategy call of the prefix with its answer,
// played into another execution's strategy, which must answer alike.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "search/strategy_tape.h"

namespace chess::search {
namespace {

// Picks the last enabled thread (or `forced` when set); yields at point `yield_at` when set.
class ScriptedStrategy final : public Strategy {
 public:
  ThreadId PickThread(const SchedulingContext& context) override {
    ++picks;
    return forced.value_or(context.enabled.back());
  }
  std::optional<bool> YieldsAt(ThreadId, uint64_t points) const override {
    if (!yield_at) return std::nullopt;
    return points == *yield_at;
  }
  void BeginExecution() override { ++begun; }
  std::string Describe() const override { return "scripted"; }

  int begun = 0;
  int picks = 0;
  std::optional<ThreadId> forced;
  std::optional<uint64_t> yield_at;
};

StrategyTape TapeOfAPrefix(Strategy& inner) {
  TapedStrategy taped(inner);
  taped.Tape(true);
  taped.BeginExecution();
  const std::vector<ThreadId> one{ThreadId{0}};
  SchedulingContext context;
  context.enabled = one;
  (void)taped.PickThread(context);
  (void)taped.YieldsAt(ThreadId{0}, 1);
  taped.Resolved(false);  // the supervisor's own decision: no yield
  (void)taped.InterruptedBefore(ThreadId{0}, 1);
  (void)taped.Verdict();
  taped.Tape(false);
  (void)taped.PickThread(context);  // after the tape stopped: not kept
  return taped.Taped();
}

TEST(StrategyTape, KeepsEveryCallWhileTaping) {
  ScriptedStrategy inner;
  const StrategyTape tape = TapeOfAPrefix(inner);
  ASSERT_EQ(tape.size(), 5u);
  EXPECT_EQ(tape[0].kind, TapedCall::Kind::kBegin);
  EXPECT_EQ(tape[1].kind, TapedCall::Kind::kPick);
  EXPECT_EQ(tape[1].thread, ThreadId{0});
  EXPECT_EQ(tape[2].kind, TapedCall::Kind::kYieldsAt);
  EXPECT_FALSE(tape[2].yes);
  EXPECT_EQ(inner.picks, 2);
}

TEST(StrategyTape, PlaysIntoAStrategyThatAnswersAlike) {
  ScriptedStrategy first;
  const StrategyTape tape = TapeOfAPrefix(first);
  ScriptedStrategy second;
  TapedStrategy player(second);
  EXPECT_EQ(player.Play(tape), std::nullopt);
  EXPECT_EQ(second.begun, 1);
  EXPECT_EQ(second.picks, 1);
  EXPECT_TRUE(player.Taped().empty());  // playing is not taping
}

TEST(StrategyTape, AReplayThatSaysNoYieldWhereTheCallerDecidedNoneMatches) {
  ScriptedStrategy first;
  const StrategyTape tape = TapeOfAPrefix(first);
  ScriptedStrategy replaying;
  replaying.yield_at = 7;  // answers false at point 1: what the supervisor decided then
  TapedStrategy player(replaying);
  EXPECT_EQ(player.Play(tape), std::nullopt);
}

TEST(StrategyTape, AStrategyThatWouldYieldElsewhereDoesNotMatch) {
  ScriptedStrategy first;
  const StrategyTape tape = TapeOfAPrefix(first);
  ScriptedStrategy yielding;
  yielding.yield_at = 1;
  TapedStrategy player(yielding);
  const auto mismatch = player.Play(tape);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->find("fairness yield"), std::string::npos) << *mismatch;
}

TEST(StrategyTape, AStrategyThatPicksAnotherThreadDoesNotMatch) {
  ScriptedStrategy first;
  const StrategyTape tape = TapeOfAPrefix(first);
  ScriptedStrategy other;
  other.forced = ThreadId{5};
  TapedStrategy player(other);
  const auto mismatch = player.Play(tape);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->find("picked another thread"), std::string::npos) << *mismatch;
}

}  // namespace
}  // namespace chess::search
