#!/bin/sh
# A stand-in for chess-trace in suite.ctest_module.discovery: it checks chess_trace_discover_tests()'s side of
# the contract without searching anything.
#   test --list --report FILE [--framework NAME] -- BINARY
#       writes the listing `chess-trace test --list` writes (docs/testing-a-suite.md) for a GoogleTest BINARY,
#       plus two made-up cases: one disabled, one whose name holds every character a CMake file could trip on.
#   explore [OPTIONS] -- COMMAND...
#       runs COMMAND once, natively.
set -eu

usage() {
  echo "chess_trace_stub.sh: unexpected arguments: $*" >&2
  exit 125
}

case "${1-}" in
  explore)
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
    [ $# -gt 1 ] || usage "explore without -- COMMAND"
    shift
    exec "$@"
    ;;
  test)
    shift
    report=""
    listed=no
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
      case "$1" in
        --list) listed=yes ;;
        --report) shift; report="$1" ;;
        --framework) shift; [ "$1" = gtest ] || usage "--framework $1" ;;
        *) usage "$@" ;;
      esac
      shift
    done
    [ "$listed" = yes ] && [ -n "$report" ] && [ $# -eq 2 ] || usage "test without --list --report FILE -- BINARY"
    binary="$2"
    names=$("$binary" --gtest_list_tests | awk '
      /^Running main\(\)/ { next }
      /^[^ ]/ { suite = $1; next }
      /^  / { print suite $1 }')
    {
      printf '{"schema":1,"framework":"gtest","command":["%s"],"tests":[' "$binary"
      for name in $names; do
        printf '{"name":"%s","command":["%s","--gtest_filter=%s"],"disabled":false},' "$name" "$binary" "$name"
      done
      printf '{"name":"Bank.DISABLED_Overdraft","command":["%s","--gtest_filter=Bank.DISABLED_Overdraft"],"disabled":true},' "$binary"
      printf '{"name":"Bank says \\"hi\\"; [1] ]=] $HOME ${X} \\\\ \\u00e9","command":["%s","--gtest_filter=Bank.DepositsUnderOneLockAddUp"],"disabled":false}' "$binary"
      printf ']}\n'
    } > "$report"
    ;;
  *)
    usage "$@"
    ;;
esac
