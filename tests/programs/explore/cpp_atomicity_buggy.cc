// cpp_atomicity_buggy: the C++ version of atomicity_buggy.c — an atomicity violation (lost
// update) on a bank balance, with std::thread and std::mutex.
//
// Bug: deposit and withdraw each read the balance under one lock_guard and write the new value
// back under a second one. No data race, but the read-modify-write is not atomic: an update
// made by the other thread between the two critical sections is overwritten.
//
// Schedule that exposes it (1 preemption): main starts both threads and blocks in join; the
// depositor reads 100 and is preempted at the std::mutex::lock of its write-back; the
// withdrawer runs to the end (70); the depositor writes 150. main's assertion (120) fails:
// SIGABRT. Without a preemption a started thread runs to its exit (it never blocks), so the
// updates never interleave.
//
// Fixed twin: cpp_atomicity_fixed.cc.
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
  void Write(long value) {
    std::lock_guard lock(mutex_);
    balance_ = value;
  }

 private:
  std::mutex mutex_;
  long balance_ = kInitialBalance;  // guarded by mutex_
};

Account account;

void Deposit() {
  const long current = account.Read();
  // The window: the lock is free here, yet `current` is used as if it still held.
  account.Write(current + kDeposit);
}

void Withdraw() {
  const long current = account.Read();
  if (current >= kWithdrawal) account.Write(current - kWithdrawal);
}

}  // namespace

int main() {
  std::thread depositor(Deposit);
  std::thread withdrawer(Withdraw);
  depositor.join();
  withdrawer.join();
  const long balance = account.Read();
  assert(balance == kInitialBalance + kDeposit - kWithdrawal);
  std::printf("balance %ld\n", balance);
  return 0;
}
