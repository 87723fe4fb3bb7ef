#!/bin/sh
# A script with a shebang: chess-trace runs it as the kernel would.
echo "hello from a script with $# arguments: $*"
