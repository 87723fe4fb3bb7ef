// std::thread with Mutex, Condvar and mpsc channels.
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread;

fn main() {
    let counter = Arc::new(Mutex::new(0u64));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                for _ in 0..5000 {
                    *counter.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }

    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let signaller = Arc::clone(&pair);
    let waker = thread::spawn(move || {
        let (flag, cond) = &*signaller;
        *flag.lock().unwrap() = true;
        cond.notify_one();
    });
    {
        let (flag, cond) = &*pair;
        let mut ready = flag.lock().unwrap();
        while !*ready {
            ready = cond.wait(ready).unwrap();
        }
    }
    waker.join().unwrap();

    let (sender, receiver) = mpsc::channel();
    for i in 0..5 {
        let sender = sender.clone();
        thread::spawn(move || sender.send(i * i).unwrap());
    }
    drop(sender);
    let mut squares: Vec<i32> = receiver.iter().collect();
    squares.sort();
    let total = *counter.lock().unwrap();
    println!("counter {} squares {:?}", total, squares);
    std::process::exit(if total == 20000 && squares == vec![0, 1, 4, 9, 16] { 0 } else { 1 });
}
