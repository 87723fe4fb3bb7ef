// rust_atomic_counter_fixed: two threads increment an AtomicUsize with one fetch_add each (a
// `lock xadd`): no increment can be lost, whatever the schedule. The twin of
// rust_atomic_counter_buggy.rs.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn increment() {
    COUNTER.fetch_add(1, Ordering::SeqCst);
}

fn main() {
    let workers: Vec<_> = (0..2).map(|_| thread::spawn(increment)).collect();
    for worker in workers {
        worker.join().unwrap();
    }
    assert_eq!(COUNTER.load(Ordering::SeqCst), 2, "an increment was lost");
    println!("counter: 2");
}
