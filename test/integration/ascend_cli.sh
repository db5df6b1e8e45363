#!/usr/bin/env bash
# `ptorun --backend ascend` on a machine without CANN: exit status 3 and one clear line; `auto` falls
# back to the simulator; with the fake ACL library the same bundle runs through the ascend backend.
set -euo pipefail
ptoc=$1 ptorun=$2 src=$3 fake=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$ptoc" "$src/samples/make/specs/scaled_add.yaml" -o "$tmp/b.bundle"
set +e
env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME -u PTORUN_ACL_LIBRARY "$ptorun" "$tmp/b.bundle" --backend ascend --dim B=16 \
  > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "exit status $rc, expected 3"
[ "$(wc -l < "$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "expected one line on stderr"; }
grep -q "no usable Ascend runtime (tried libascendcl.so, libacl_rt.so" "$tmp/err" || { cat "$tmp/err"; fail "unclear message"; }
grep -q -- "--backend sim" "$tmp/err" || fail "the message does not say how to go on"

env -u PTORUN_ACL_LIBRARY "$ptorun" "$tmp/b.bundle" --backend auto --dim B=16 --check > "$tmp/auto" 2>&1 || { cat "$tmp/auto"; fail "auto did not fall back"; }
grep -q "(simulated)" "$tmp/auto" || fail "auto did not run the simulator"

# With an NPU runtime (the fake) but a bundle built without CANN: exit 3, and the message says how to rebuild.
set +e
PTORUN_ACL_LIBRARY="$fake" "$ptorun" "$tmp/b.bundle" --backend ascend --dim B=16 > "$tmp/out2" 2> "$tmp/err2"
rc=$?
set -e
[ "$rc" = 3 ] || fail "exit status $rc for a bundle without device binaries"
grep -q "the bundle has no device binaries" "$tmp/err2" || { cat "$tmp/err2"; fail "no device-binary message"; }
echo "ascend cli: ok"
