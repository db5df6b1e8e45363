#!/usr/bin/env bash
# samples/make driven by real make in a temporary folder: everything builds and
# checks, the depfile lists what it should, a second make does nothing, and
# touching one spec rebuilds exactly that bundle.
set -euo pipefail
ptoc=$1 ptorun=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/samples/make" "$tmp/"
cd "$tmp/make"
fail() { echo "FAIL: $*"; exit 1; }
mk() { make --no-print-directory PTOC="$ptoc" PTORUN="$ptorun" "$@"; }

mk -j2 > build1.log 2>&1 || { cat build1.log; fail "first make failed"; }
for n in scaled_add row_softmax; do
  [ -f "out/$n.bundle" ] || fail "out/$n.bundle missing"
  [ -f "out/$n.checked" ] || fail "out/$n.checked missing"
  grep -q "specs/$n.yaml" "out/$n.d" || fail "out/$n.d does not list the spec"
  grep -q "pto_tile.h" "out/$n.d" || fail "out/$n.d does not list the kernels/ headers"
  head -n1 "out/$n.d" | grep -q "^out/$n.bundle:" || fail "out/$n.d target is not the bundle"
done

mk > build2.log 2>&1 || fail "second make failed"
grep -q "Nothing to be done" build2.log || { cat build2.log; fail "second make rebuilt something"; }

sleep 1
touch specs/row_softmax.yaml
mk > build3.log 2>&1 || fail "third make failed"
grep -q "specs/row_softmax.yaml -o out/row_softmax.bundle" build3.log || { cat build3.log; fail "row_softmax not rebuilt"; }
if grep -q "specs/scaled_add.yaml -o" build3.log; then cat build3.log; fail "scaled_add rebuilt needlessly"; fi

# A broken spec fails the build and leaves no bundle behind.
printf 'ptoc: 1\nname: broken\nbody: [42]\n' > specs/broken.yaml
if mk > build4.log 2>&1; then fail "a broken spec did not fail the build"; fi
[ ! -e out/broken.bundle ] || fail "a failed compile left out/broken.bundle"
grep -q "specs/broken.yaml:3:" build4.log || { cat build4.log; fail "no located error for the broken spec"; }
echo "make sample: ok"
