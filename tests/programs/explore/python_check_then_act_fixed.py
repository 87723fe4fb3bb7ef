"""python_check_then_act_fixed: the twin of python_check_then_act_buggy.py, correct under every
schedule. A thread takes the seat in the same step as it checks that one is free (under one
lock), then pays; a seat whose payment fails would be given back. Whoever checks second finds no
seat."""
import threading

seats_left = 1
booked = []
seats_lock = threading.Lock()
paid = threading.Event()
opened = threading.Event()


def take_seat():
    global seats_left
    with seats_lock:
        if seats_left == 0:
            return False
        seats_left -= 1
        return True


def book_after_paying(name):
    if take_seat():
        print(f"{name}: a seat is taken, paying")
        paid.wait()
        booked.append(name)


def book_at_once(name):
    opened.wait()
    if take_seat():
        print(f"{name}: a seat is taken")
        booked.append(name)


ann = threading.Thread(target=book_after_paying, args=("ann",))
bob = threading.Thread(target=book_at_once, args=("bob",))
ann.start()
bob.start()
opened.set()
paid.set()
ann.join()
bob.join()
print(f"booked: {', '.join(booked)}; seats left: {seats_left}")
assert seats_left >= 0 and len(booked) == 1, "overbooked"
