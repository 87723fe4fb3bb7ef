#!/bin/sh
# A shell starts a long sleep in the background and kills it: the sleeper, parked in an
# emulated sleep, must still receive the signal.
sleep 100 &
pid=$!
sleep 0.1
kill $pid
wait $pid
echo "the sleep ended with status $?"
