#!/usr/bin/env bash
# samples/cmake configured and built in a temporary folder; a rebuild with
# nothing changed runs no ptoc; touching a spec reruns exactly its ptoc.
set -euo pipefail
ptoc=$1 ptorun=$2 src=$3
command -v cmake >/dev/null || { echo "cmake not installed: skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/samples/cmake" "$src/samples/make" "$tmp/"
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$tmp/cmake" -B "$tmp/build" -G "Unix Makefiles" -DPTOC="$ptoc" -DPTORUN="$ptorun" > "$tmp/configure.log" 2>&1 \
  || { cat "$tmp/configure.log"; fail "configure failed"; }
cmake --build "$tmp/build" > "$tmp/b1.log" 2>&1 || { cat "$tmp/b1.log"; fail "build failed"; }
[ -f "$tmp/build/scaled_add.bundle" ] && [ -f "$tmp/build/row_softmax.checked" ] || fail "bundles missing"
cmake --build "$tmp/build" > "$tmp/b2.log" 2>&1 || fail "rebuild failed"
if grep -q "ptoc " "$tmp/b2.log"; then cat "$tmp/b2.log"; fail "a no-op rebuild ran ptoc"; fi
sleep 1
touch "$tmp/make/specs/scaled_add.yaml"
cmake --build "$tmp/build" > "$tmp/b3.log" 2>&1 || fail "third build failed"
grep -q "ptoc scaled_add" "$tmp/b3.log" || { cat "$tmp/b3.log"; fail "scaled_add not rebuilt"; }
if grep -q "ptoc row_softmax" "$tmp/b3.log"; then fail "row_softmax rebuilt needlessly"; fi
echo "cmake sample: ok"
