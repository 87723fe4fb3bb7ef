// doctest_bank: a doctest suite for `chess-trace test`. "deposit, then withdraw in two steps"
// holds the one atomicity violation (1 preemption); its comma must be escaped in a --test-case
// filter. The other tests are correct under every schedule.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "bank.h"

TEST_CASE("an account opens with its balance") { CHECK(bank::Account(100).Balance() == 100); }

TEST_CASE("deposit and withdraw from two threads") { CHECK(bank::DepositAndWithdraw() == 120); }

TEST_CASE("deposit, then withdraw in two steps") { CHECK(bank::DepositAndWithdrawInTwoSteps() == 120); }

TEST_CASE("transfers both ways keep the total") { CHECK(bank::TransfersBothWays() == 200); }
