// rust_abba_deadlock_fixed: the correct twin of rust_abba_deadlock_buggy.rs.
//
// Every transfer locks the lower-numbered account first, whatever its direction. With one
// global order, a thread holding its first lock can only ever wait for a lock later in the
// order, so no cycle of waiters can form and no schedule deadlocks. The yield_now() between
// the two acquisitions and the 10 ms stagger in main stay as in the buggy twin, so both offer
// the search the same scheduling points: a switch in the window now makes the other transfer
// block on the first lock (a futex wait) and hand the CPU back.
use std::process;
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

const ACCOUNTS: usize = 2;
const INITIAL_BALANCE: i64 = 100;

static ACCOUNT: [Mutex<i64>; ACCOUNTS] = [Mutex::new(INITIAL_BALANCE), Mutex::new(INITIAL_BALANCE)];

fn transfer(from: usize, to: usize, amount: i64) {
    let (first, second) = (from.min(to), from.max(to));
    let mut low = ACCOUNT[first].lock().unwrap();
    thread::yield_now();
    let mut high = ACCOUNT[second].lock().unwrap();
    // Money moves from `from` to `to`: down the order or up it.
    let moved = if from == first { amount } else { -amount };
    *low -= moved;
    *high += moved;
}

fn main() {
    let zero_to_one = thread::spawn(|| transfer(0, 1, 30));
    thread::sleep(Duration::from_millis(10));
    let one_to_zero = thread::spawn(|| transfer(1, 0, 20));
    zero_to_one.join().unwrap();
    one_to_zero.join().unwrap();
    let zero = *ACCOUNT[0].lock().unwrap();
    let one = *ACCOUNT[1].lock().unwrap();
    if zero + one != ACCOUNTS as i64 * INITIAL_BALANCE {
        eprintln!("balances {zero} {one}: money was created or lost");
        process::abort();
    }
    println!("balances {zero} {one}");
}
