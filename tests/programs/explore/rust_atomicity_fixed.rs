// rust_atomicity_fixed: the correct twin of rust_atomicity_buggy.rs.
//
// Each update reads and writes the balance under one MutexGuard, so no other update can slip
// in between the read and the write: every schedule ends with 100 + 50 - 30 = 120. The
// yield_now() stays, now inside the critical section: a preemption there makes the other
// worker block on the contended lock (a real futex wait, which chess-trace sees) and hand the
// CPU straight back. The 10 ms stagger in main is kept as in the buggy twin, so both offer the
// search the same scheduling points.
use std::process;
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

const INITIAL_BALANCE: i64 = 100;
const DEPOSIT: i64 = 50;
const WITHDRAWAL: i64 = 30;
const EXPECTED: i64 = INITIAL_BALANCE + DEPOSIT - WITHDRAWAL;

static BALANCE: Mutex<i64> = Mutex::new(INITIAL_BALANCE);

fn deposit() {
    let mut balance = BALANCE.lock().unwrap();
    let current = *balance;
    thread::yield_now();
    *balance = current + DEPOSIT;
}

fn withdraw() {
    let mut balance = BALANCE.lock().unwrap();
    // The check and the update must see the same balance, so both stay under the guard.
    let current = *balance;
    thread::yield_now();
    if current >= WITHDRAWAL {
        *balance = current - WITHDRAWAL;
    }
}

fn main() {
    let depositor = thread::spawn(deposit);
    thread::sleep(Duration::from_millis(10));
    let withdrawer = thread::spawn(withdraw);
    depositor.join().unwrap();
    withdrawer.join().unwrap();
    let balance = *BALANCE.lock().unwrap();
    if balance != EXPECTED {
        eprintln!("balance {balance}, expected {EXPECTED}");
        process::abort();
    }
    println!("balance {balance}");
}
