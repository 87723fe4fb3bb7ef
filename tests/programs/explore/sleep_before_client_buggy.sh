#!/bin/sh
# sleep_before_client_buggy.sh PEER: a test harness that starts a server, sleeps "long enough"
# for it to listen, then runs the client against it — the classic flaky CI harness.
#
# Bug: nothing says the server is listening after one second. Natively it always is (it needs
# a millisecond), so the harness passes every time; on a loaded CI machine the client connects
# too early, fails, and the harness exits 1.
#
# Under chess-trace time is virtual and `run` is faithful: the sleep ends only when nothing else
# can run, that is once the server waits in accept. `explore` fires the sleep's deadline early
# (a choice that costs one preemption: "the server was slow"), which finds the failure: exit
# status 1, "client: cannot connect".
#
# Fixed twin: sleep_before_client_fixed.sh (waits for the server to say it listens).
peer=$1
socket=/tmp/harness.sock
"$peer" server "$socket" &
server=$!
sleep 1
if ! "$peer" client "$socket"; then
  kill "$server"
  exit 1
fi
wait "$server"
