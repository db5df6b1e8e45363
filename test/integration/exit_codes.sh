#!/usr/bin/env bash
# Exit codes of each error class (runtime/core/exit_codes.h, README.md) from ptoc, ptorun and the C API.
# usage: exit_codes.sh PTOC PTORUN SOURCE_ROOT CAPI_PROBE
set -u
ptoc=$1; ptorun=$2; root=$3; probe=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fails=0
expect() {  # expect CODE WHAT COMMAND...
  local want=$1 what=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $what: exit $got, want $want"; sed 's/^/    /' "$tmp/err" | head -5; fails=$((fails+1));
  else echo "ok   $what: exit $got"; fi
}
spec="$root/specs/examples/aligned_tiles.yaml"
printf 'ptoc: 1\nname: bad\nbody:\n  - "y = x +"\n' > "$tmp/bad.yaml"
expect 0 "ptoc compiles" "$ptoc" "$spec" -o "$tmp/ok.bundle"
expect 1 "ptoc spec error" "$ptoc" "$tmp/bad.yaml" -o "$tmp/bad.bundle"
expect 2 "ptoc unknown flag" "$ptoc" "$spec" --no-such-flag
expect 2 "ptoc unknown --dump-after stage" "$ptoc" "$spec" -o "$tmp/x.bundle" --dump-after=nope
expect 3 "ptoc --host-twin=cce, no host compiler" env CXX=/nonexistent/c++ PATH=/nonexistent "$ptoc" "$spec" -o "$tmp/nocxx.bundle" --host-twin=cce
expect 0 "ptoc without a host compiler (leaf programs)" env CXX=/nonexistent/c++ PATH=/nonexistent "$ptoc" "$spec" -o "$tmp/nocxx.bundle"
expect 0 "ptorun runs" "$ptorun" "$tmp/ok.bundle" --timing-only
head -c 100 "$tmp/ok.bundle" > "$tmp/corrupt.bundle"
expect 1 "ptorun corrupt bundle" "$ptorun" "$tmp/corrupt.bundle"
expect 1 "ptorun info on a directory" "$ptorun" info "$tmp"
echo "not npy" > "$tmp/bad.npy"
in=$("$ptorun" info "$tmp/ok.bundle" | awk '$2 == "input" {print $1; exit}')
expect 2 "ptorun bad .npy input" "$ptorun" "$tmp/ok.bundle" --input "$in=$tmp/bad.npy"
expect 2 "ptorun unknown input" "$ptorun" "$tmp/ok.bundle" --input "no_such=$tmp/bad.npy"
expect 2 "ptorun unknown flag" "$ptorun" "$tmp/ok.bundle" --no-such-flag
expect 2 "ptorun compile-time knob" "$ptorun" "$tmp/ok.bundle" --set codegen.enable_pmu_trace=1
expect 2 "ptorun knob out of range" "$ptorun" "$tmp/ok.bundle" --set runtime.device_sched_mode=9
# Options that take NAME=VALUE take one value each time: the spec or bundle may follow them.
expect 0 "ptoc --set before the spec" "$ptoc" --set runtime.stitch_function_max_num=64 "$spec" -o "$tmp/set.bundle"
expect 0 "ptoc --emit before the spec" "$ptoc" --emit ir "$spec"
expect 0 "ptoc --limit before the spec" "$ptoc" --limit spec_bytes=64M "$spec" -o "$tmp/lim.bundle"
expect 0 "ptorun --set before the bundle" "$ptorun" --set runtime.stitch_function_max_num=64 "$tmp/ok.bundle" --timing-only
out=$("$ptorun" info "$tmp/ok.bundle" | awk '$2 == "output" {print $1; exit}')
expect 0 "ptorun --output before the bundle" "$ptorun" --output "$out=$tmp/o.npy" "$tmp/ok.bundle"
if [ -s "$tmp/o.npy" ]; then echo "ok   --output before the bundle wrote $out"; else echo "FAIL --output before the bundle wrote nothing"; fails=$((fails+1)); fi
expect 0 "ptorun --set twice" "$ptorun" "$tmp/ok.bundle" --timing-only --set runtime.stitch_function_max_num=64 --set runtime.device_sched_mode=0
# The C API, same table.
"$probe" "$tmp/ok.bundle" "$tmp/corrupt.bundle" "$tmp" > "$tmp/capi" 2>&1
for line in "corrupt 1" "directory 1" "missing 1" "good 0" "unknown_dim 2" "unknown_input 2"; do
  if grep -qx "$line" "$tmp/capi"; then echo "ok   C API $line"; else echo "FAIL C API: want '$line', got:"; cat "$tmp/capi"; fails=$((fails+1)); fi
done
echo "exit codes: $fails failures"
[ "$fails" = 0 ]
