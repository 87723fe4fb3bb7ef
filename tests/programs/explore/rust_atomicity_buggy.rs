// rust_atomicity_buggy: the Rust version of atomicity_buggy.c — an atomicity violation (lost
// update) on a bank balance, with std::thread and std::sync::Mutex.
//
// Bug: deposit and withdraw each read the balance under one MutexGuard and write the new value
// back under a second one. No data race, but the read-modify-write is not atomic: an update
// made by the other thread between the two critical sections is overwritten with a value
// computed from the stale read.
//
// Schedule that exposes it (1 preemption): main starts the depositor and sleeps 10 ms before
// starting the withdrawer. The search fires that sleep early, before the depositor has run (a
// deadline fired while another thread could run: 1 preemption); main starts the withdrawer and
// blocks in join. The depositor reads 100, releases the lock and calls yield_now() in the
// window — a yield, so the switch to the withdrawer is free; the withdrawer reads 100, yields,
// writes 100 - 30 = 70 and exits; the depositor resumes and writes 100 + 50 = 150. main finds
// 150, not 120, and aborts: SIGABRT. (The sleep fired at the depositor's yield_now() instead
// also costs 1 preemption and ends with 70; --strategy pct finds that one.) Without a
// preemption the depositor is alone until it exits (main sleeps, the withdrawer does not exist
// yet, its yield_now() finds no one to yield to), then the withdrawer starts: the updates never
// interleave.
//
// Why the window holds a yield_now(), and what this corpus cannot reach in Rust: an
// uncontended std::sync::Mutex lock or unlock is an atomic instruction on a futex word — no
// syscall, no pthread call — so neither chess-trace's syscall filter nor its pthread shim sees
// it, and the search can switch threads only at a syscall the filter traps (futex wait and
// wake, clone, exit, sched_yield, sleeps, signals, file locks, IPC, blocking I/O).
// atomicity_buggy.c has a point at every pthread_mutex_lock; here, without the yield_now(),
// the window between the two critical sections holds no scheduling point at all, and the
// search reports "no bug" for this broken program (measured: "all 13 schedules with ≤ 2
// preemptions explored"). A log line in the window does not help: an eprintln! to the stderr
// `explore` captures (a memfd, a regular file), a std::fs write, or a write to a pipe or socket
// with room in it goes to the kernel directly, with no point (I/O points are not switched on
// yet); with an eprintln! instead of the yield_now() the search again finds nothing. Windows
// like these stay out of reach until scheduling points at atomic instructions (lock cmpxchg,
// xchg) exist.
//
// Why main sleeps: yield_now() is a real sched_yield natively too. If the workers overlapped
// and shared a CPU, the depositor would hand the CPU to the withdrawer in the window: without
// the stagger, 421 of 1,000 native runs aborted on a 2-CPU machine. The 10 ms head start lets
// the depositor finish first, so the program passes natively; chess-trace's virtual time ends
// a sleep early only as a choice that costs a preemption.
//
// Fixed twin: rust_atomicity_fixed.rs (read and write under one guard).
use std::process;
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

const INITIAL_BALANCE: i64 = 100;
const DEPOSIT: i64 = 50;
const WITHDRAWAL: i64 = 30;
const EXPECTED: i64 = INITIAL_BALANCE + DEPOSIT - WITHDRAWAL;

static BALANCE: Mutex<i64> = Mutex::new(INITIAL_BALANCE);

fn read_balance() -> i64 {
    *BALANCE.lock().unwrap()
}

fn write_balance(value: i64) {
    *BALANCE.lock().unwrap() = value;
}

fn deposit() {
    let current = read_balance();
    // The window: the lock is free here, yet `current` is used as if it still held. The
    // yield_now() (sched_yield) is the one scheduling point in it.
    thread::yield_now();
    write_balance(current + DEPOSIT);
}

fn withdraw() {
    let current = read_balance();
    thread::yield_now();
    if current >= WITHDRAWAL {
        write_balance(current - WITHDRAWAL);
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
