#include "search/outcome.h"

#include <gtest/gtest.h>

namespace chess::search {
namespace {

TEST(Outcome, SpellingsFollowTheReportTable) {
  EXPECT_EQ(OutcomeName(Outcome::kOk), "ok");
  EXPECT_EQ(OutcomeName(Outcome::kExitStatus), "exit-status");
  EXPECT_EQ(OutcomeName(Outcome::kGoodSamaritan), "good-samaritan");
  EXPECT_EQ(OutcomeName(Outcome::kStepLimit), "step-limit");
  EXPECT_EQ(OutcomeName(Outcome::kWrongOutput), "wrong-output");
  for (int i = 0; i <= static_cast<int>(kLastOutcome); ++i) {
    const auto outcome = static_cast<Outcome>(i);
    EXPECT_EQ(ParseOutcome(OutcomeName(outcome)), outcome);
  }
  EXPECT_FALSE(ParseOutcome("crash").has_value());
}

TEST(Outcome, BugsAreTheFailuresExploreStopsAt) {
  EXPECT_TRUE(IsBug(Outcome::kDeadlock));
  EXPECT_TRUE(IsBug(Outcome::kSignal));
  EXPECT_TRUE(IsBug(Outcome::kWrongOutput));
  EXPECT_FALSE(EndsAtADecision(Outcome::kWrongOutput));
  EXPECT_FALSE(IsBug(Outcome::kOk));
  EXPECT_FALSE(IsBug(Outcome::kStepLimit));
  EXPECT_FALSE(IsBug(Outcome::kDivergence));
}

}  // namespace
}  // namespace chess::search
