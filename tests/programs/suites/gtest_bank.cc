// gtest_bank: a GoogleTest suite for `chess-trace test`. Bank.LostUpdate holds the one atomicity
// violation (1 preemption: the depositor preempted between its read and its write-back); the
// other tests are correct under every schedule, Bank.DISABLED_Overdraft is listed but disabled.
#include <gtest/gtest.h>

#include "bank.h"

TEST(Bank, OpensWithItsBalance) { EXPECT_EQ(bank::Account(100).Balance(), 100); }

TEST(Bank, DepositAndWithdraw) { EXPECT_EQ(bank::DepositAndWithdraw(), 120); }

TEST(Bank, LostUpdate) { EXPECT_EQ(bank::DepositAndWithdrawInTwoSteps(), 120); }

TEST(Bank, TransfersKeepTheTotal) { EXPECT_EQ(bank::TransfersBothWays(), 200); }

TEST(Bank, DISABLED_Overdraft) { EXPECT_FALSE(bank::Account(10).Withdraw(20)); }

class Deposits : public testing::TestWithParam<long> {};

TEST_P(Deposits, FromTwoThreads) { EXPECT_EQ(bank::DepositsFromThreads(GetParam()), 2 * GetParam()); }

INSTANTIATE_TEST_SUITE_P(Amounts, Deposits, testing::Values(10L, 25L));
