"""python_check_then_act_buggy: two threads book the last seat of a flight; both get it.

Bug: ann checks that a seat is free, then waits for her payment to go through, then books it.
The check and the booking are not one step: whatever another thread does while ann waits is not
seen. bob checks and books at once when booking opens.

The natural schedule has main open booking and confirm ann's payment, then wait for ann: ann
books first, bob finds no seat. The bug needs bob to run first when main blocks in join, while
ann still waits for her payment's confirmation to be seen — a free choice, no preemption: bob
books the seat ann already checked, ann books it again, and the count goes below zero
(AssertionError: exit status 1).

Natively bob often runs first, and the program fails now and then.

Both threads print() before they book: on a terminal CPython writes each line at once, into a
file or a pipe it buffers them, so the program's syscalls (and locks) differ with the kind of
stdout, which a replay must give back as recorded.

Fixed twin: python_check_then_act_fixed.py (the seat is taken in the same step as the check, and
given back if the payment fails)."""
import threading

seats_left = 1
booked = []
paid = threading.Event()
opened = threading.Event()


def book_after_paying(name):
    global seats_left
    if seats_left > 0:  # the check …
        print(f"{name}: a seat is free, paying")
        paid.wait()
        seats_left -= 1  # … and the act, with a wait between them
        booked.append(name)


def book_at_once(name):
    global seats_left
    opened.wait()
    if seats_left > 0:
        print(f"{name}: a seat is free")
        seats_left -= 1
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
assert seats_left >= 0, "overbooked"
