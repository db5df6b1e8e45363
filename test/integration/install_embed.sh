#!/usr/bin/env bash
# `meson install` into a temporary prefix, then the embedding sample built
# against the installed tree with pkg-config and run on a bundle compiled by
# the installed ptoc.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
DESTDIR="$tmp/root" meson install -C "$build" --no-rebuild --quiet > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "meson install failed"; }
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$tmp/root$prefix"
[ -x "$root/bin/ptoc" ] && [ -x "$root/bin/ptorun" ] || fail "ptoc/ptorun not installed under $root/bin"
pc=$(dirname "$(find "$root" -name ptorun.pc | head -n1)")
[ -n "$pc" ] || fail "ptorun.pc not installed"
[ -f "$root/include/ptorun/ptorun.h" ] || fail "ptorun.h not installed"
find "$root" -name pto_tile.h | grep -q . || fail "kernels/ headers not installed"
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
cp "$src/samples/embed/main.cpp" "$tmp/"
c++ -std=c++17 "$tmp/main.cpp" $(pkg-config --cflags --libs ptorun) -o "$tmp/embed" || fail "the sample does not build against the installed library"
libdir=$(dirname "$(find "$root" -name 'libptorun.so' | head -n1)")
# The installed ptoc compiles the bundle (its kernels/ headers come from the installed tree).
"$root/bin/ptoc" "$src/samples/make/specs/scaled_add.yaml" -o "$tmp/scaled_add.bundle" || fail "installed ptoc failed"
LD_LIBRARY_PATH="$libdir" "$tmp/embed" "$tmp/scaled_add.bundle" | tee "$tmp/run.log"
grep -q "0 of 10240 outputs wrong" "$tmp/run.log" || fail "wrong outputs"
grep -q "unknown input -> status 2: the operator has no input 'nope' (inputs: a, b)" "$tmp/run.log" || fail "misuse not reported"
echo "install + embed: ok"
