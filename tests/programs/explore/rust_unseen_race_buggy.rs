// rust_unseen_race_buggy: a lost update on an AtomicUsize, read with one load and written back
// with one store, in two threads: a check-then-act race with no lock, no yield and no syscall in
// its window. Any schedule that switches threads between a thread's load and its store loses
// an increment and fails the assertion; natively it almost never does.
//
// chess-trace cannot switch threads there yet: an atomic instruction is no scheduling point
// (neither a syscall nor a pthread call). `explore` therefore does not find this bug, and its
// verdict must say why — the program ran threads but announced no sync operation — instead of
// "all … schedules explored", which would read as a proof that there is no bug.
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
