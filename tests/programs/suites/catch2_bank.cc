// catch2_bank: a Catch2 (v2, single header) suite for `chess-trace test`. "deposit, then withdraw
// [in two steps]" holds the one atomicity violation (1 preemption); its name has a comma and
// brackets, which a test spec must escape. The other tests are correct under every schedule.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "bank.h"

TEST_CASE("an account opens with its balance", "[bank]") { REQUIRE(bank::Account(100).Balance() == 100); }

TEST_CASE("deposit and withdraw from two threads", "[bank][threads]") { REQUIRE(bank::DepositAndWithdraw() == 120); }

TEST_CASE("deposit, then withdraw [in two steps]", "[bank][threads]") {
  REQUIRE(bank::DepositAndWithdrawInTwoSteps() == 120);
}

TEST_CASE("transfers both ways keep the total", "[bank][threads]") { REQUIRE(bank::TransfersBothWays() == 200); }
