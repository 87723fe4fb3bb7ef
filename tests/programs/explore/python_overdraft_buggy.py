"""python_overdraft_buggy: examples/overdraft.c in Python: two threads withdraw 80 from a balance
of 100, each checking the balance under the lock and debiting it under the lock again, so both
can see 100 and the account ends at -60 (AssertionError, exit status 1). CPython's locks and
its GIL hand-offs go through pthread and semaphore calls, which the preload shim announces."""
import threading

balance = 100
lock = threading.Lock()


def withdraw(amount):
    global balance
    with lock:
        enough = balance >= amount
    if enough:
        with lock:
            balance -= amount


machines = [threading.Thread(target=withdraw, args=(80,)) for _ in range(2)]
for machine in machines:
    machine.start()
for machine in machines:
    machine.join()
print("balance:", balance)
assert balance >= 0, "the account was overdrawn"
