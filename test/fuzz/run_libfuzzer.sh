#!/bin/sh
# Smoke run of the libFuzzer targets (test/fuzz/README.md): each target for SECONDS with its dictionary
# and a seed corpus made from the library (specs, bundles compiled from them, .npy files), then a
# summary line per target: executions, crashes. Exit 1 when a target crashed (its reproducer is in
# BUILD/fuzz-libfuzzer/<target>/crash-*), 0 otherwise.
#   test/fuzz/run_libfuzzer.sh [--seconds 60] [--build build-fuzz] [--targets "frontend bundle npy"]
#                              [--ptoc PATH] [--out DIR] [-- extra libFuzzer flags]
# --out: where corpora, logs and crash files go (default BUILD/fuzz-libfuzzer), so a long run and a
# smoke run can go on side by side.
# --ptoc compiles the bundle seeds (default: BUILD/cli/ptoc, else build/cli/ptoc of the source tree).
# Long runs: --seconds 3600 (or more); the corpus under BUILD/fuzz-libfuzzer/<target>/corpus grows
# between runs. PTOC_FUZZ_ASAN_EXTRA=detect_stack_use_after_scope=0 (for example) adds ASan options, to get
# past a known bug while it is open.
set -u
seconds=60
build=build-fuzz
targets="frontend bundle npy"
extra=""
ptoc=""
out=""
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --ptoc) ptoc=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra="$*"; break ;;
    *) echo "run_libfuzzer.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$build" in /*) ;; *) build="$src/$build" ;; esac
[ -n "${out:-}" ] || out="$build/fuzz-libfuzzer"
if [ -z "$ptoc" ]; then
  ptoc="$build/cli/ptoc"
  [ -x "$ptoc" ] || ptoc="$src/build/cli/ptoc"
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3
status=0
for t in $targets; do
  exe="$build/test/fuzz/fuzz_$t"
  if [ ! -x "$exe" ]; then
    echo "run_libfuzzer.sh: $exe not built: configure with -Dfuzzing=true (see test/fuzz/README.md)" >&2
    exit 2
  fi
  dir="$out/$t"
  mkdir -p "$dir/corpus" "$dir/seeds"
  case "$t" in
    frontend)
      for f in "$src"/specs/*.yaml "$src"/specs/examples/*.yaml "$src"/test/conformance/specs/*.yaml \
               "$src"/test/conformance/bad/*.yaml "$here"/found/*/*.yaml; do
        [ -f "$f" ] && cp "$f" "$dir/seeds/"
      done ;;
    bundle)
      if [ -z "$(ls "$dir/seeds" 2>/dev/null)" ]; then
        for f in "$src"/specs/examples/*.yaml "$src"/specs/softmax.yaml "$src"/specs/rmsnorm.yaml; do
          [ -f "$f" ] && XDG_CACHE_HOME="$build/fuzz-cache" "$ptoc" "$f" \
            -o "$dir/seeds/$(basename "$f" .yaml).bundle" >/dev/null 2>&1
        done
      fi ;;
    npy)
      "$py" - "$dir/seeds" <<'PYEOF'
import sys, numpy as np
d = sys.argv[1]
for i, (dt, shape) in enumerate([("<f4", (2, 3)), ("<f2", (4,)), ("<f8", (1, 2, 2)), ("<i4", (3, 1)),
                                 ("|i1", (5,)), ("|u1", (2, 2)), ("|b1", (3,)), ("<f4", (0, 4))]):
    a = np.arange(int(np.prod(shape))).reshape(shape).astype(dt)
    for k in range(7):  # the first byte picks the tensor dtype (fuzz_npy.cpp)
        with open(f"{d}/s{i}_{k}.bin", "wb") as f:
            f.write(bytes([k]))
            np.save(f, a)
PYEOF
      ;;
  esac
  maxlen=65536
  entropic=""
  # Bundles are large inputs with ~27 000 coverage features: libFuzzer's entropic bookkeeping
  # (UpdateFeatureFrequency) took 44 % of the bundle target's time; without it, 1.4x less CPU per
  # execution for the same coverage (6000 runs: 10.8 -> 7.6 s, features 27 645 -> 28 063).
  [ "$t" = bundle ] && { maxlen=1048576; entropic="-entropic=0"; }
  # The front end has ~75 000 features per spec: entropic's UpdateFeatureFrequency took 55 % of its
  # time (perf, ASan build); without it 3.4x less CPU per execution and more coverage (3000 runs from the
  # library seeds, -seed=1: 26.1 -> 7.7 CPU s, features 75 605 -> 77 286).
  [ "$t" = frontend ] && entropic="-entropic=0"
  # ASan records the allocation stack of every malloc and free: on the front end's deep elaborator
  # recursion that unwinding and the stack depot took 23 % (perf). 4 frames cut the CPU of replaying a
  # 505-input corpus 9.9 -> 8.1 s; detection is unchanged, only a report's allocation / free stacks
  # are shorter (rerun a crash with ASAN_OPTIONS=malloc_context_size=30 for the whole stacks).
  asan_ctx=""
  [ "$t" = frontend ] && asan_ctx=":malloc_context_size=4"
  log="$dir/log.txt"
  ( cd "$dir" && ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1$asan_ctx${PTOC_FUZZ_ASAN_EXTRA:+:$PTOC_FUZZ_ASAN_EXTRA} UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      PTOC_FUZZ_FIX_CHECKSUMS=1 \
      "$exe" -max_total_time="$seconds" -dict="$here/dict/$t.dict" -max_len="$maxlen" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 $entropic $extra corpus seeds >"$log" 2>&1 )
  rc=$?
  execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)
  crashes=$(ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | wc -l)
  echo "libfuzzer $t: ${execs:-0} executions in ${seconds} s, exit $rc, $crashes crash/timeout/oom files (log $log)"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    grep -a -m3 -E 'ERROR|SUMMARY|runtime error|deadly' "$log" | sed 's/^/  /'
    status=1
  fi
done
exit $status
