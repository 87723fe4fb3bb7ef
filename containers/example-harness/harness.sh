#!/bin/sh
# harness.sh: an integration test that starts a server, sleeps "long enough" for it to listen,
# then runs a client against it. Run it with `sh harness.sh` from anywhere.
#
# The bug: nothing says the server listens after one second. On a quiet machine it always does
# (it needs a millisecond), so the test passes every time. On a loaded CI machine the client can
# connect first: it fails, and the harness then waits forever for a server that will never get
# its client -- the job hangs until CI kills it.
#
# `chess-trace explore -- sh harness.sh` finds it in seconds: time is virtual, and ending the
# sleep early ("the server was slow") is one of the schedules it tries. Fixed: harness_fixed.sh.
dir=$(dirname "$0")
socket=/tmp/pingpong.sock

"$dir/pingpong" server "$socket" &
server=$!
sleep 1
"$dir/pingpong" client "$socket"
wait "$server"
