// cpp_atomicity_fixed: the correct twin of cpp_atomicity_buggy.cc.
//
// Each update reads and writes the balance under one lock_guard, so no other update can slip
// in between: every schedule ends with 100 + 50 - 30 = 120.
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

constexpr long kInitialBalance = 100, kDeposit = 50, kWithdrawal = 30;

class Account {
 public:
  long Read() {
    std::lock_guard lock(mutex_);
    return balance_;
  }
  void Deposit(long amount) {
    std::lock_guard lock(mutex_);
    balance_ += amount;
  }
  void Withdraw(long amount) {
    std::lock_guard lock(mutex_);
    // The check and the update must see the same balance, so both stay under the lock.
    if (balance_ >= amount) balance_ -= amount;
  }

 private:
  std::mutex mutex_;
  long balance_ = kInitialBalance;  // guarded by mutex_
};

Account account;

}  // namespace

int main() {
  std::thread depositor([] { account.Deposit(kDeposit); });
  std::thread withdrawer([] { account.Withdraw(kWithdrawal); });
  depositor.join();
  withdrawer.join();
  const long balance = account.Read();
  assert(balance == kInitialBalance + kDeposit - kWithdrawal);
  std::printf("balance %ld\n", balance);
  return 0;
}
