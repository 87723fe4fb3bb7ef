"""test_bank: a pytest suite for `chess-trace test`. test_lost_update holds the one atomicity
violation: a withdrawal reads the balance under the lock, gives up the GIL (time.sleep(0), where
the search can switch threads) and writes the new balance under the lock again, so a deposit made
in between is lost. The other tests are correct under every schedule."""
import threading
import time


class Account:
    def __init__(self, balance):
        self.balance = balance  # guarded by self.lock
        self.lock = threading.Lock()

    def deposit(self, amount):
        with self.lock:
            self.balance += amount

    def withdraw(self, amount):
        with self.lock:
            if self.balance >= amount:
                self.balance -= amount

    def withdraw_in_two_steps(self, amount):
        with self.lock:
            current = self.balance
        time.sleep(0)  # the window: the lock is free, yet `current` is used as if it still held
        if current >= amount:
            with self.lock:
                self.balance = current - amount


def run_in_threads(*actions):
    """Starts each action 10 ms after the one before: natively each has long finished by then, and
    only a schedule that preempts one inside its window interleaves them."""
    threads = [threading.Thread(target=action) for action in actions]
    for thread in threads:
        thread.start()
        time.sleep(0.01)
    for thread in threads:
        thread.join()


def test_opens_with_its_balance():
    assert Account(100).balance == 100


def test_deposit_and_withdraw():
    account = Account(100)
    run_in_threads(lambda: account.deposit(50), lambda: account.withdraw(30))
    assert account.balance == 120


def test_lost_update():
    account = Account(100)
    run_in_threads(lambda: account.withdraw_in_two_steps(30), lambda: account.deposit(50))
    assert account.balance == 120
