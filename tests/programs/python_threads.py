"""threading with Lock, Condition and queue.Queue; prints a schedule-independent result."""
import queue
import threading

counter = 0
lock = threading.Lock()


def add(times):
    global counter
    for _ in range(times):
        with lock:
            counter += 1


work = queue.Queue()
results = []
results_lock = threading.Lock()


def square_worker():
    while True:
        item = work.get()
        if item is None:
            return
        with results_lock:
            results.append(item * item)


adders = [threading.Thread(target=add, args=(2000,)) for _ in range(4)]
workers = [threading.Thread(target=square_worker) for _ in range(3)]
for t in adders + workers:
    t.start()
for i in range(100):
    work.put(i)
for _ in workers:
    work.put(None)
for t in adders + workers:
    t.join()

ready = threading.Condition()
flag = []


def notifier():
    with ready:
        flag.append(True)
        ready.notify()


with ready:
    threading.Thread(target=notifier).start()
    ready.wait_for(lambda: flag)

print(f"counter {counter}, sum of squares {sum(results)}, notified {bool(flag)}")
raise SystemExit(0 if counter == 8000 and sum(results) == 328350 else 1)
