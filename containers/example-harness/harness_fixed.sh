#!/bin/sh
# harness_fixed.sh: harness.sh without its race. Instead of trusting a fixed sleep, it waits for
# the server's socket to appear -- pingpong makes it appear only once it listens -- polling
# every 0.1 s, and gives up (kills the server, exits 1) after 10 s rather than hang.
dir=$(dirname "$0")
socket=/tmp/pingpong.sock

rm -f "$socket"  # a socket left by an earlier run would look like a listening server
"$dir/pingpong" server "$socket" &
server=$!
tries=0
until [ -S "$socket" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 100 ] || ! kill -0 "$server" 2>/dev/null; then
    echo "harness: the server did not come up" >&2
    kill "$server" 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
if ! "$dir/pingpong" client "$socket"; then
  kill "$server"
  exit 1
fi
wait "$server"
