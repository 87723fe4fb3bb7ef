#!/bin/sh
# client_then_wait_fixed.sh PEER: the twin of client_then_wait_buggy.sh. The client starts only
# once the server has created its ready file, after listen(2); then it always gets in, and the
# server always gets its client.
peer=$1
socket=/tmp/harness.sock
ready=/tmp/harness.ready
rm -f "$ready"
"$peer" server "$socket" "$ready" &
server=$!
until [ -e "$ready" ]; do sleep 0.1; done
"$peer" client "$socket"
wait "$server"
