// Three tests of a bank account shared by two threads: two correct, one with an atomicity violation that only
// a preemption between its read and its write exposes (suite.ctest_module: chess-trace finds it, and only it).
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

namespace {

struct Account {
  std::mutex lock;
  int balance = 0;
};

TEST(Bank, DepositsUnderOneLockAddUp) {
  Account account;
  auto deposit = [&account] {
    std::lock_guard<std::mutex> guard(account.lock);
    account.balance += 1;
  };
  std::thread first(deposit);
  std::thread second(deposit);
  first.join();
  second.join();
  EXPECT_EQ(account.balance, 2);
}

TEST(Bank, TransfersKeepTheTotal) {
  Account from;
  Account to;
  from.balance = 100;
  auto transfer = [&from, &to](int amount) {
    std::lock_guard<std::mutex> from_guard(from.lock);  // always in this order: no deadlock
    std::lock_guard<std::mutex> to_guard(to.lock);
    from.balance -= amount;
    to.balance += amount;
  };
  std::thread first(transfer, 30);
  std::thread second(transfer, 20);
  first.join();
  second.join();
  EXPECT_EQ(from.balance + to.balance, 100);
  EXPECT_EQ(to.balance, 50);
}

// Reads the balance under the lock, lets go of it, and writes what it read plus one under the lock again:
// each step is locked, the deposit is not. The other thread's deposit between the two is lost.
TEST(Bank, DepositsReadAndWriteUnderSeparateLocks) {
  Account account;
  auto deposit = [&account] {
    int seen;
    {
      std::lock_guard<std::mutex> guard(account.lock);
      seen = account.balance;
    }
    std::lock_guard<std::mutex> guard(account.lock);
    account.balance = seen + 1;
  };
  std::thread first(deposit);
  std::thread second(deposit);
  first.join();
  second.join();
  EXPECT_EQ(account.balance, 2);
}

}  // namespace
