#!/bin/sh
# Builds make_project with `make -j2` in a fresh directory and prints a checksum of everything
# it produced, so a native build and a build under chess-trace can be compared byte for byte.
set -e
source_dir=$(dirname "$0")/make_project
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source_dir"/*.c "$source_dir"/Makefile "$work"
make -s -j2 -C "$work"
"$work"/program
cd "$work" && md5sum ./*.o libparts.a
