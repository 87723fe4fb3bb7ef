#!/bin/sh
# sleep_before_client_fixed.sh PEER: the correct twin of sleep_before_client_buggy.sh. The
# server creates a file once it listens, and the harness polls for that file instead of
# trusting a fixed sleep: however slow the server is, the client never connects too early.
peer=$1
socket=/tmp/harness.sock
ready=/tmp/harness.ready
rm -f "$ready"
"$peer" server "$socket" "$ready" &
server=$!
until [ -e "$ready" ]; do sleep 0.1; done
if ! "$peer" client "$socket"; then
  kill "$server"
  exit 1
fi
wait "$server"
