#!/bin/sh
# client_then_wait_buggy.sh PEER: a harness that starts a server, sleeps "long enough" for it to
# listen, runs the client, and then waits for the server whatever the client did.
#
# Bug: when the client connects before the server listens (the sleep ended first: one
# preemption), the client fails, and the script then waits forever for a server that waits
# forever for its client — a deadlock: the shell in wait4 for the server, the server in accept on
# a socket under the private /tmp that only the tree could connect to.
#
# Fixed twin: client_then_wait_fixed.sh waits for the server to say it listens.
peer=$1
socket=/tmp/harness.sock
"$peer" server "$socket" &
server=$!
sleep 1
"$peer" client "$socket"
wait "$server"
