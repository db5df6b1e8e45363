#!/usr/bin/env bash
# Hostile and careless use of ptoc and ptorun from the command line (issue 12):
# devices, directories and full disks as inputs and outputs, limits, GM beyond
# memory and signals. Each case checks the exit status and the message.
# Usage: hostile_cli.sh PTOC PTORUN SOURCE_ROOT
set -u
PTOC=$1 PTORUN=$2 ROOT=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
fails=0
# expect CODE "substring of stderr" -- command...
expect() {
  local want=$1 text=$2
  shift 2
  "$@" >out.txt 2>err.txt
  local rc=$?
  if [[ $rc -ne $want ]] || { [[ -n $text ]] && ! grep -qF -- "$text" err.txt; }; then
    echo "FAIL: $* -> exit $rc (want $want), stderr:"
    head -c 2000 err.txt
    echo "(wanted: $text)"
    fails=$((fails + 1))
  else
    echo "ok: $*"
  fi
}

cat >t.yaml <<'YAML'
ptoc: 1
name: t
dims: {B: dynamic, H: 64}
inputs: {x: {dtype: fp32, shape: [B, H]}}
outputs: {y: {dtype: fp32, shape: [B, H]}}
body:
  - {vec_tile: [16, 64]}
  - loop: {var: b, count: "ceil_div(B, 16)"}
    body:
      - "y[b * 16:, :] = x[b * 16:(b + 1) * 16, :] * 2"
YAML

# Spec inputs that are not files.
expect 1 "is a directory, not a spec file" "$PTOC" check "$W"
expect 1 "/dev/zero: error: is a device, not a spec file" "$PTOC" check /dev/zero
expect 1 "is a directory, not a spec file" "$PTOC" "$W" -o x.bundle
printf 'ptoc: 1\n# %s\n' "$(head -c 3000 /dev/zero | tr '\0' x)" >big.yaml
expect 1 "more than the spec size limit of 1024" "$PTOC" check big.yaml --limit spec_bytes=1K
expect 2 "unknown limit 'nope'" "$PTOC" check t.yaml --limit nope=1
expect 2 "PTOC_LIMITS: limit yaml_depth must be in 1..1000" env PTOC_LIMITS=yaml_depth=0 "$PTOC" check t.yaml
printf 'ptoc: 1\nname: t\n# caf\xe9\n' >latin1.yaml
expect 1 "latin1.yaml:3:6: error: byte 0xE9 (offset 21) is not valid UTF-8" "$PTOC" check latin1.yaml

# Outputs: a directory, a device, a full disk.
mkdir -p outdir
expect 1 "cannot write outdir: it is a directory" "$PTOC" t.yaml -o outdir
if grep -q Success err.txt; then echo "FAIL: '-o DIR' message ends in Success"; fails=$((fails + 1)); fi
# A device node as output is written in place, never replaced by a regular file. As root the test
# makes its own null device (never risking the system's /dev/null); otherwise /dev/null is safe anyway.
NULLDEV=/dev/null
if [[ $(id -u) -eq 0 ]] && mknod -m 666 "$W/nulldev" c 1 3 2>/dev/null; then NULLDEV=$W/nulldev; fi
expect 0 "" "$PTOC" t.yaml -o "$NULLDEV"
if [[ ! -c $NULLDEV ]]; then echo "FAIL: $NULLDEV is no longer a character device"; fails=$((fails + 1)); fi
if [[ -e /dev/full ]]; then
  expect 1 "/dev/full: cannot write the bundle: No space left on device" "$PTOC" t.yaml -o /dev/full
fi
expect 0 "" "$PTOC" t.yaml -o t.bundle
ls ./*.tmp.* >/dev/null 2>&1 && { echo "FAIL: temporary files left"; fails=$((fails + 1)); }

# ptorun: outputs that cannot be written, GM beyond memory, run folders.
if [[ -e /dev/full ]]; then
  expect 1 "--output y: cannot write /dev/full: No space left on device" "$PTORUN" t.bundle --dim B=32 --output y=/dev/full
fi
expect 0 "" "$PTORUN" t.bundle --dim B=32 --output y="$NULLDEV"
if [[ ! -c $NULLDEV ]]; then echo "FAIL: ptorun replaced $NULLDEV"; fails=$((fails + 1)); fi
expect 1 "the GM tensors need 512000000000 bytes, more than the --limit gm_bytes: 1073741824 bytes; the largest, 'x' fp32 [1000000000, 64], needs 256000000000 bytes" \
  "$PTORUN" t.bundle --dim B=1000000000 --limit gm_bytes=1G
expect 1 "the GM tensors need" "$PTORUN" t.bundle --dim B=100000000000
expect 0 "" "$PTORUN" t.bundle --dim B=32 --runtime-debug-mode 1 --dump-device-perf --output-dir runs
ls -d runs/output_* >folders.txt
if [[ $(wc -l <folders.txt) -ne 1 ]] || grep -q partial folders.txt; then
  echo "FAIL: expected one complete run folder:"; cat folders.txt; fails=$((fails + 1))
fi
# An interrupted run (left .partial) is skipped by analyze, with a note.
cp -r "$(cat folders.txt)" "runs/output_29991231_235959_000000_1_h.partial"
expect 0 "note: skipping incomplete run runs/output_29991231_235959_000000_1_h.partial" "$PTORUN" analyze runs
grep -qF "$(cat folders.txt)" out.txt || { echo "FAIL: analyze did not read the complete run"; fails=$((fails + 1)); }
expect 1 "is an incomplete run" "$PTORUN" analyze runs/output_29991231_235959_000000_1_h.partial

# Signals: ptoc blocked reading a pipe, then SIGTERM / SIGINT.
for sig in TERM INT; do
  rm -f fifo && mkfifo fifo
  "$PTOC" check fifo 2>err.txt &
  pid=$!
  sleep 0.5
  kill -s $sig $pid
  wait $pid
  rc=$?
  want=$([[ $sig == TERM ]] && echo 143 || echo 130)
  msg=$([[ $sig == TERM ]] && echo "ptoc: terminated (SIGTERM)" || echo "ptoc: interrupted (SIGINT)")
  if [[ $rc -ne $want ]] || ! grep -qF "$msg" err.txt; then
    echo "FAIL: SIG$sig -> exit $rc (want $want)"; cat err.txt; fails=$((fails + 1))
  else
    echo "ok: SIG$sig -> $rc"
  fi
done

# Bundles as ptorun reads them: a device, the size limit (issue 12; crafted contents are
# test/hardening/crafted_bundles.py).
"$PTOC" t.yaml -o t.bundle >/dev/null 2>&1
expect 1 "/dev/zero: is a device, not a bundle" "$PTORUN" /dev/zero
expect 1 "/dev/zero: is a device, not a bundle" "$PTORUN" info /dev/zero
expect 1 "more than the bundle size limit of 1024 bytes; raise the limit with --limit bundle_bytes=N" \
  "$PTORUN" t.bundle --dim B=32 --limit bundle_bytes=1K
# A pipe is read up to the cap, as a spec is.
expect 0 "" bash -c 'cat "$1" | "$2" info /dev/stdin' _ t.bundle "$PTORUN"
# --twin=cce loads code from the bundle: it says so, whatever comes next.
expect 1 "use it only on bundles you trust" "$PTORUN" t.bundle --dim B=32 --twin=cce

# Profiled task records past the task_records limit: left out of the Machine View, with a warning;
# the streamed files (dyn_topo.txt, the L1 file) hold all 10 (test/profiling/streamed_records.py).
expect 0 "" "$PTORUN" t.bundle --dim B=160 --runtime-debug-mode 1 --output-dir prof --limit task_records=3
if ! grep -qF "[WARN] round 0: task num larger than the task_records limit of 3, the excess part (7 tasks) will not be recorded" out.txt; then
  echo "FAIL: no task_records warning"; cat out.txt; fails=$((fails + 1))
elif [[ $(grep -o '"cat":"event"' prof/output_*/merged_swimlane.json | wc -l) -ne 3 ]] ||
     [[ $(grep -o '"execStart"' prof/output_*/tilefwk_L1_prof_data.json | wc -l) -ne 10 ]]; then
  echo "FAIL: the capped run folder does not hold 3 Machine View tasks and 10 L1 records"; fails=$((fails + 1))
else
  echo "ok: task_records cap"
fi
expect 0 "" "$PTORUN" t.bundle --dim B=160 --runtime-debug-mode 1 --output-dir prof2
if grep -qF "[WARN]" out.txt; then echo "FAIL: a warning under the task_records limit"; fails=$((fails + 1)); fi

# Nested static loops multiply: refused at the loop that passes static_iterations, with a hint.
cat >nested.yaml <<'YAML'
ptoc: 1
name: nested
dims: {H: 16}
inputs: {x: {dtype: fp32, shape: [64, H]}}
outputs: {y: {dtype: fp32, shape: [64, H]}}
body:
  - {vec_tile: [1, 16]}
  - loop: {var: i, count: 64, kind: static}
    body:
      - loop: {var: j, count: 1024, kind: static}
        body:
          - loop: {var: k, count: 1024, kind: static}
            body:
              - "y[i:i + 1, :] = x[i:i + 1, :] + 1.0"
YAML
expect 1 "nested.yaml:12:47: error: static loops unroll more than 100000 loop bodies in all (this loop of 1024 iterations, 99392 unrolled before it" \
  "$PTOC" check nested.yaml
if [[ $(grep -c "error:" err.txt) -ne 1 ]]; then echo "FAIL: static_iterations reported more than once"; cat err.txt; fails=$((fails + 1)); fi
expect 1 "more than 10 loop bodies" "$PTOC" check nested.yaml --limit static_iterations=10

# --dump-after=all past dump_bytes: the later dumps are left out with a warning, the compile goes on.
expect 0 "would pass the dump_bytes limit of 2048 bytes" "$PTOC" t.yaml -o d.bundle --dump-after=all --emit-dir dumps \
  --limit dump_bytes=2K
total=$(cat dumps/dump-after-*.txt 2>/dev/null | wc -c)
if [[ $total -gt 2048 ]]; then echo "FAIL: $total dump bytes past the 2048 cap"; fails=$((fails + 1)); fi

# The progress line: one every two seconds after the first two, never with --quiet. 2M tasks run
# for a few seconds; the line is required only when the run really took 2.5 s or more.
expect 0 "" "$PTORUN" t.bundle --dim B=32000000 --timing-only
secs=$(grep -o 'host [0-9.]* s' out.txt | awk '{print int($2 * 10)}')
if [[ ${secs:-0} -ge 25 ]] && ! grep -qE "^ptorun: progress: [0-9]+ tasks done \(round 0\), simulated [0-9.]+ us, [0-9]+ tasks/s, [0-9]+ s$" err.txt; then
  echo "FAIL: no progress line on a run of $secs/10 s"; cat err.txt; fails=$((fails + 1))
fi
expect 0 "" "$PTORUN" t.bundle --dim B=32000000 --timing-only --quiet
if grep -q "progress" err.txt; then echo "FAIL: a progress line with --quiet"; fails=$((fails + 1)); fi

if [[ $fails -ne 0 ]]; then
  echo "$fails failures"
  exit 1
fi
echo "all hostile CLI cases passed"
