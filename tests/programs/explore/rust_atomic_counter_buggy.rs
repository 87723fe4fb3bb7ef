// rust_atomic_counter_buggy: a lost update on an AtomicUsize, read with one load and written
// back with one store, in two threads: a check-then-act race with no lock, no yield and no
// syscall in its window. Any schedule that switches threads between a thread's load and its
// store loses an increment and fails the assertion; natively it almost never does.
//
// Schedule that exposes it (1 preemption): the first thread loads 0 and is preempted at its
// store (a SeqCst store is an `xchg`, an atomic instruction); the second loads 0 and stores 1;
// the first stores 1. main finds 1: a panic, exit status 101.
//
// Until atomic instructions are scheduling points, `explore` cannot switch threads there (they
// are neither syscalls nor pthread calls), and its verdict must say why — the program ran
// threads but announced no sync operation — instead of "all … schedules explored".
//
// Fixed twin: rust_atomic_counter_fixed.rs (one fetch_add).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn increment() {
    let seen = COUNTER.load(Ordering::SeqCst);
    COUNTER.store(seen + 1, Ordering::SeqCst); // the window: another increment may be lost here
}

fn main() {
    let workers: Vec<_> = (0..2).map(|_| thread::spawn(increment)).collect();
    for worker in workers {
        worker.join().unwrap();
    }
    assert_eq!(COUNTER.load(Ordering::SeqCst), 2, "an increment was lost");
    println!("counter: 2");
}
