#!/bin/sh
# A version manager's shim in miniature (pyenv, rbenv, asdf): before it execs the interpreter it
# asks a dozen short-lived helpers which version, prefix and hooks apply. Under `explore` every
# one of those processes multiplies the schedules of round 0 while none of their interleavings
# is of interest: --focus INTERPRETER searches the interpreter's threads only.
#   version_manager_shim.sh INTERPRETER SCRIPT
interpreter=$1
script=$2
for setting in version prefix root hooks shims exec which global local shell; do
  value=$(printf '%s\n' "$setting" | tr 'a-z' 'A-Z')
  name=$(basename "/versions/$value")
  : "$name"
done
exec "$interpreter" "$script"
