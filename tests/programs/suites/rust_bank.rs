// rust_bank: a libtest suite (rustc --test) for `chess-trace test`. lost_update holds the one
// atomicity violation: the withdrawal reads the balance under the lock, yields (sched_yield, the
// scheduling point in its window) and writes it back under the lock again, so a deposit made in
// between is lost (1 preemption). The other tests are correct under every schedule.
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

struct Account {
    balance: Mutex<i64>,
}

impl Account {
    fn new(balance: i64) -> Account {
        Account { balance: Mutex::new(balance) }
    }
    fn balance(&self) -> i64 {
        *self.balance.lock().unwrap()
    }
    fn deposit(&self, amount: i64) {
        *self.balance.lock().unwrap() += amount;
    }
    fn withdraw(&self, amount: i64) {
        let mut balance = self.balance.lock().unwrap();
        if *balance >= amount {
            *balance -= amount;
        }
    }
    fn withdraw_in_two_steps(&self, amount: i64) {
        let current = self.balance();
        thread::yield_now(); // the window: the lock is free, yet `current` is used as if it still held
        if current >= amount {
            *self.balance.lock().unwrap() = current - amount;
        }
    }
}

// Runs `first`, then 10 ms later `second`, on threads of their own: natively the first has long
// finished by then, and only a schedule that preempts it inside its window interleaves them.
fn run_in_threads(first: impl FnOnce() + Send, second: impl FnOnce() + Send) {
    thread::scope(|scope| {
        scope.spawn(first);
        thread::sleep(Duration::from_millis(10));
        scope.spawn(second);
    });
}

#[test]
fn opens_with_its_balance() {
    assert_eq!(Account::new(100).balance(), 100);
}

#[test]
fn deposit_and_withdraw() {
    let account = Account::new(100);
    run_in_threads(|| account.deposit(50), || account.withdraw(30));
    assert_eq!(account.balance(), 120);
}

#[test]
fn lost_update() {
    let account = Account::new(100);
    run_in_threads(|| account.withdraw_in_two_steps(30), || account.deposit(50));
    assert_eq!(account.balance(), 120);
}

mod transfers {
    use super::*;

    #[test]
    fn keep_the_total() {
        let checking = Account::new(100);
        let savings = Account::new(100);
        let transfer = |from: &Account, to: &Account, amount: i64| {
            // One lock at a time, never both: no lock-order inversion, and the money is always
            // somewhere a reader under the locks could count it.
            let mut source = from.balance.lock().unwrap();
            if *source >= amount {
                *source -= amount;
                drop(source);
                to.deposit(amount);
            }
        };
        run_in_threads(|| transfer(&checking, &savings, 40), || transfer(&savings, &checking, 70));
        assert_eq!(checking.balance() + savings.balance(), 200);
    }
}
