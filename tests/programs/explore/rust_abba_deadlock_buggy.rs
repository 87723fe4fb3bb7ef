// rust_abba_deadlock_buggy: the Rust version of abba_deadlock_buggy.c — a lock-order inversion
// between two transfers, with std::thread and std::sync::Mutex.
//
// Bug: a transfer locks its source account, then its destination. The first transfer moves
// money from account 0 to 1 (locks A, then B), the second from 1 to 0 (locks B, then A). If
// each holds its first lock when it asks for its second, both wait for ever in a futex wait:
// the program hangs (deadlock), no assertion fails.
//
// Schedule that exposes it (1 preemption): main starts the first transfer and sleeps 10 ms
// before starting the second. The search fires that sleep early, before the first transfer has
// run (a deadline fired while another thread could run: 1 preemption); main starts the second
// transfer and blocks in join. The first transfer locks A and calls yield_now() — a yield, so
// the switch to the second is free; the second locks B, yields, asks for A and blocks in a
// futex wait (the lock is contended now: a syscall, which chess-trace sees); the first asks for
// B and blocks the same way. No thread can run: deadlock. Without a preemption the first
// transfer is alone until it exits (main sleeps, the second transfer does not exist yet, its
// yield_now() finds no one to yield to), and the second then finds both locks free.
//
// Why the window holds a yield_now(), and what this corpus cannot reach in Rust: an
// uncontended std::sync::Mutex lock or unlock is an atomic instruction on a futex word — no
// syscall, no pthread call — so neither chess-trace's syscall filter nor its pthread shim sees
// it, and the search can switch threads only at a syscall the filter traps (futex wait and
// wake, clone, exit, sched_yield, sleeps, signals, file locks, IPC, blocking I/O). In
// abba_deadlock_buggy.c the pthread_mutex_lock of the second lock is a point; here, without
// the yield_now(), nothing between the two lock() calls is one, both acquisitions happen in
// one turn, and the search reports "no bug" for this broken program (measured: "all 13
// schedules with ≤ 2 preemptions explored"). A log line in the window does not help: an
// eprintln! to the stderr `explore` captures (a memfd, a regular file), a std::fs write, or a
// write to a pipe or socket with room in it goes to the kernel directly, with no point (I/O
// points are not switched on yet). Windows like these stay out of reach until scheduling
// points at atomic instructions (lock cmpxchg, xchg) exist.
//
// Why main sleeps: yield_now() is a real sched_yield natively too. If the transfers overlapped
// and shared a CPU, the first would hand the CPU to the second while it holds A, and the
// program would really hang: without the stagger, 353 of 1,000 native runs hung on a 2-CPU
// machine. The 10 ms head start lets the first transfer finish first, so the program passes
// natively; chess-trace's virtual time ends a sleep early only as a choice that costs a
// preemption.
//
// Fixed twin: rust_abba_deadlock_fixed.rs (every transfer locks the lower-numbered account
// first).
use std::process;
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

const ACCOUNTS: usize = 2;
const INITIAL_BALANCE: i64 = 100;

static ACCOUNT: [Mutex<i64>; ACCOUNTS] = [Mutex::new(INITIAL_BALANCE), Mutex::new(INITIAL_BALANCE)];

fn transfer(from: usize, to: usize, amount: i64) {
    // The order depends on the direction of the transfer: that is the inversion.
    let mut source = ACCOUNT[from].lock().unwrap();
    // The window: the first lock is held and the second not yet asked for. The yield_now()
    // (sched_yield) is the one scheduling point in it.
    thread::yield_now();
    let mut destination = ACCOUNT[to].lock().unwrap();
    *source -= amount;
    *destination += amount;
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
