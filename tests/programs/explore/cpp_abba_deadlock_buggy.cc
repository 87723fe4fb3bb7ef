// cpp_abba_deadlock_buggy: the C++ version of abba_deadlock_buggy.c — a lock-order inversion
// between two transfers, with std::mutex and nested lock_guards.
//
// Bug: a transfer locks its source account, then its destination. Thread 1 moves money from
// account 0 to 1 (locks A, then B), thread 2 from 1 to 0 (locks B, then A). If each holds its
// first lock when it asks for its second, both wait for ever: the program hangs (deadlock), no
// assertion fails.
//
// Schedule that exposes it (1 preemption): main starts both threads and blocks in join; thread
// 1 locks A and is preempted at its lock of B; thread 2 locks B and blocks on A; thread 1
// blocks on B. Without a preemption a started thread runs to its exit, finding both locks free.
//
// Fixed twin: cpp_abba_deadlock_fixed.cc.
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

struct Account {
  std::mutex mutex;
  long balance = 100;  // guarded by mutex
};

Account accounts[2];

void Transfer(Account& from, Account& to, long amount) {
  // The order depends on the direction of the transfer: that is the inversion.
  std::lock_guard from_lock(from.mutex);
  std::lock_guard to_lock(to.mutex);
  from.balance -= amount;
  to.balance += amount;
}

}  // namespace

int main() {
  std::thread first([] { Transfer(accounts[0], accounts[1], 30); });
  std::thread second([] { Transfer(accounts[1], accounts[0], 20); });
  first.join();
  second.join();
  assert(accounts[0].balance + accounts[1].balance == 200);
  std::printf("balances %ld %ld\n", accounts[0].balance, accounts[1].balance);
  return 0;
}
