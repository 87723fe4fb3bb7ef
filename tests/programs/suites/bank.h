// bank.h: the account the C++ sample suites (gtest_bank, catch2_bank, doctest_bank) test. Every
// access to a balance is under its account's lock; what differs between their tests is whether a
// read-modify-write is one critical section (correct) or two (the atomicity violation).
#pragma once

#include <chrono>
#include <mutex>
#include <thread>

namespace bank {

class Account {
 public:
  explicit Account(long balance) : balance_(balance) {}

  long Balance() {
    std::lock_guard<std::mutex> hold(lock_);
    return balance_;
  }
  // One critical section: correct under every schedule.
  void Deposit(long amount) {
    std::lock_guard<std::mutex> hold(lock_);
    balance_ += amount;
  }
  bool Withdraw(long amount) {
    std::lock_guard<std::mutex> hold(lock_);
    if (balance_ < amount) return false;
    balance_ -= amount;
    return true;
  }
  // The bug: the balance is read in one critical section and written back in another. Whatever
  // another thread writes between them (the yield is where a search may switch threads) is lost.
  void DepositInTwoSteps(long amount) {
    const long current = Balance();
    std::this_thread::yield();
    std::lock_guard<std::mutex> hold(lock_);
    balance_ = current + amount;
  }
  void WithdrawInTwoSteps(long amount) {
    const long current = Balance();
    std::this_thread::yield();
    if (current < amount) return;
    std::lock_guard<std::mutex> hold(lock_);
    balance_ = current - amount;
  }

  friend void Transfer(Account& from, Account& to, long amount) {
    std::scoped_lock hold(from.lock_, to.lock_);  // both at once: no lock-order inversion
    if (from.balance_ < amount) return;
    from.balance_ -= amount;
    to.balance_ += amount;
  }

 private:
  std::mutex lock_;
  long balance_;  // guarded by lock_
};

// The racy test's two threads. The second starts 10 ms after the first, which natively has long
// finished by then: only a schedule that preempts the first inside its window loses an update.
inline long DepositAndWithdrawInTwoSteps() {
  Account account(100);
  std::thread depositor([&] { account.DepositInTwoSteps(50); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::thread withdrawer([&] { account.WithdrawInTwoSteps(30); });
  depositor.join();
  withdrawer.join();
  return account.Balance();  // 120, or 150 or 70 when an update was lost
}

// The correct twins: two threads, each update one critical section.
inline long DepositAndWithdraw() {
  Account account(100);
  std::thread depositor([&] { account.Deposit(50); });
  std::thread withdrawer([&] { account.Withdraw(30); });
  depositor.join();
  withdrawer.join();
  return account.Balance();
}

inline long DepositsFromThreads(long amount) {
  Account account(0);
  std::thread first([&] { account.Deposit(amount); });
  std::thread second([&] { account.Deposit(amount); });
  first.join();
  second.join();
  return account.Balance();
}

// Two transfers in opposite directions; returns the total, which must not change.
inline long TransfersBothWays() {
  Account checking(100);
  Account savings(100);
  std::thread there([&] { Transfer(checking, savings, 40); });
  std::thread back([&] { Transfer(savings, checking, 70); });
  there.join();
  back.join();
  return checking.Balance() + savings.Balance();
}

}  // namespace bank
