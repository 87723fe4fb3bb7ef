// cpp_abba_deadlock_fixed: the correct twin of cpp_abba_deadlock_buggy.cc.
//
// Every transfer locks the account that comes first in memory first, whatever its direction:
// one global order, so no cycle of waiters can form. (std::scoped_lock would also avoid the
// deadlock, by backing off and retrying; a fixed order keeps the schedules the same as the
// buggy twin's and never retries.)
#include <cassert>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

namespace {

struct Account {
  std::mutex mutex;
  long balance = 100;  // guarded by mutex
};

Account accounts[2];

void Transfer(Account& from, Account& to, long amount) {
  // std::less gives a total order on pointers even into different objects.
  const bool from_first = std::less<Account*>()(&from, &to);
  std::lock_guard first_lock(from_first ? from.mutex : to.mutex);
  std::lock_guard second_lock(from_first ? to.mutex : from.mutex);
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
