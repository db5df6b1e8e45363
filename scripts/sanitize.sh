#!/usr/bin/env bash
# The sanitizer job (issue 12): ptoc, ptorun and the Catch2 unit-test executables built with
# AddressSanitizer and UndefinedBehaviorSanitizer (-O1) into build-asan/, then: the unit tests,
# the operator library (compile, run with numerics, compare with NumPy and the evaluator), the
# profiling modes, the regression specs, the hostile command-line cases and the crafted bundles.
# Any report from either sanitizer fails the job: a release build hides undefined behaviour that
# the next compiler version turns into a wrong number.
#   scripts/sanitize.sh [--quick] [--fuzz] [--fuzz-only] [--fuzz-seconds N] [--build DIR]
# --quick (what scripts/test.sh runs in CI): five library specs and one profiling mode; the default
# (the long command) runs 21 library specs and every profiling mode.
# --fuzz adds the libFuzzer runs (FUZZ_SECONDS or --fuzz-seconds per target, default 10); --fuzz-only
# runs just them (their build is ASan+UBSan too). The long fuzz run (issue 12: 10 M executions per
# target) is `nice -n 15 scripts/sanitize.sh --fuzz-only --fuzz-seconds 36000`.
# Ends with "sanitize: N passed, N failed"; exit 1 when anything failed, 3 when the build failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
quick=0
fuzz=0
fuzz_only=0
fuzz_seconds=${FUZZ_SECONDS:-10}
build=build-asan
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --fuzz) fuzz=1; shift ;;
    --fuzz-only) fuzz=1; fuzz_only=1; shift ;;
    --fuzz-seconds) fuzz_seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "sanitize.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

t0=$SECONDS
python=/usr/bin/python3
[[ -x $python ]] || python=python3
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0 failed=0

# run NAME CMD...: passes when CMD succeeds and no sanitizer wrote a report.
run() {
  local name=$1
  shift
  if "$@" >"$log/out" 2>&1 && ! grep -qE "runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer" "$log/out"; then
    passed=$((passed + 1))
    echo "ok: $name"
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
    grep -E -A30 "runtime error:|ERROR: AddressSanitizer|FAIL" "$log/out" | head -60 || tail -40 "$log/out"
  fi
}

# --fuzz: the libFuzzer runs (test/fuzz/run_libfuzzer.sh, clang, its own build-fuzz/): the bundle
# reader, the .npy reader and the front end, $fuzz_seconds each, with the dictionaries and seeds of
# test/fuzz. The bundle seeds are compiled by build/cli/ptoc (else this job's sanitized ptoc).
# Skipped, and said so, without clang++ and its fuzzer runtime.
fuzz_runs() {
  local fuzz_build=$root/build-fuzz seeds_ptoc=$root/build/cli/ptoc
  [[ -x $seeds_ptoc ]] || seeds_ptoc=${ptoc:-}
  if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    echo "sanitize: fuzz runs skipped: no clang++ with libFuzzer (Debian: clang libclang-rt-dev)"
    return
  fi
  if [[ -z $seeds_ptoc || ! -x $seeds_ptoc ]]; then
    echo "FAIL: fuzz runs: no ptoc to compile the bundle seeds (build build/cli/ptoc first)"
    failed=$((failed + 1))
    return
  fi
  if [[ ! -f $fuzz_build/build.ninja ]] &&
     ! CXX="ccache clang++" CC="ccache clang" meson setup "$fuzz_build" -Dfuzzing=true -Db_sanitize=address,undefined \
       -Db_lundef=false --buildtype=debug -Doptimization=1 >"$log/fuzz_setup" 2>&1; then
    echo "FAIL: fuzz build setup"; tail -20 "$log/fuzz_setup"; failed=$((failed + 1))
    return
  fi
  if ! ninja -C "$fuzz_build" test/fuzz/fuzz_bundle test/fuzz/fuzz_npy test/fuzz/fuzz_frontend >"$log/fuzz_build" 2>&1; then
    echo "FAIL: fuzz targets build"; tail -20 "$log/fuzz_build"; failed=$((failed + 1))
    return
  fi
  run "libfuzzer runs (${fuzz_seconds} s per target)" test/fuzz/run_libfuzzer.sh --seconds "$fuzz_seconds" \
    --build "$fuzz_build" --ptoc "$seeds_ptoc"
  grep -h -A3 "^libfuzzer " "$log/out" || true
}

if ((fuzz_only)); then
  fuzz_runs
  echo "sanitize: $((SECONDS - t0)) s in all"
  echo "sanitize: $passed passed, $failed failed"
  ((failed == 0))
  exit
fi

if [[ ! -f $build/build.ninja ]]; then
  # -O1: the sanitizers' own advice (fast enough to run, still catches everything); only the
  # targets below are built, not the benches nor the fuzz targets.
  meson setup "$build" --buildtype=debug -Doptimization=1 -Db_sanitize=address,undefined -Db_lundef=false \
    >/dev/null || exit 3
fi
# The Catch2 executables: every registered test whose command is a compiled binary under test/.
mapfile -t unit_exes < <(meson introspect "$build" --tests | /usr/bin/python3 -c '
import json, sys
seen = set()
for t in json.load(sys.stdin):
    c = t["cmd"][0]
    if "/test/" in c and "/bench/" not in c and not c.endswith((".py", ".sh")) and c not in seen:
        seen.add(c)
        print(c)')
# --quick builds the runtime side's unit tests only (the front end and the passes are driven
# through ptoc over the library and the regression specs); the long command builds them all.
quick_units="core program runtime sim profiling session"
targets=(cli/ptoc cli/ptorun test/hardening/bundle_craft)
kept=()
for e in "${unit_exes[@]}"; do
  area=$(basename "$(dirname "$e")")
  if ((quick)) && [[ " $quick_units " != *" $area "* ]]; then continue; fi
  targets+=("${e#"$root/$build/"}")
  kept+=("$e")
done
unit_exes=("${kept[@]}")
ninja -C "$build" "${targets[@]}" || exit 3
echo "sanitize: built ${#targets[@]} targets in $((SECONDS - t0)) s"
ptoc=$root/$build/cli/ptoc
ptorun=$root/$build/cli/ptorun

# halt_on_error: the first report ends the process with a failure, so no report
# can scroll by unnoticed. allocator_may_return_null: "GM beyond memory" must stay
# the product's own error, as in a release build. Leak checking is off: both tools
# are short-lived processes that free at exit by design.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:detect_leaks=0:exitcode=66
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=66

# The unit tests: every Catch2 executable as meson registers it (its arguments and environment).
mapfile -t unit_tests < <(meson introspect "$build" --tests | UNIT_EXES="${unit_exes[*]}" /usr/bin/python3 -c '
import json, os, sys
built = set(os.environ["UNIT_EXES"].split())
for t in json.load(sys.stdin):
    if t["cmd"][0] in built:
        print(t["name"])')
for t in "${unit_tests[@]}"; do
  run "unit $t" meson test -C "$build" --no-rebuild --print-errorlogs -t 5 "$t"
done

specs=(softmax rmsnorm layernorm ffn_swiglu matmul attention decode_attention skinny_matmul
       skinny_matmul_blockdiag loop_unroll gemm_6144 examples/aligned_tiles examples/misaligned_tiles
       examples/reduction_whole examples/reduction_split examples/transpose_tiles examples/split_k
       examples/matmul_nz_trans examples/scope_parallel examples/tail_view examples/labels_reuse)
((quick)) && specs=(softmax rmsnorm matmul examples/split_k examples/tail_view)

# The library: compile the small-shape copy, run it with numerics, compare with NumPy and the evaluator.
for s in "${specs[@]}"; do
  run "library $s" "$python" test/specs/spec_tests.py conform "$ptoc" "specs/$s.yaml" --run-bundle "$ptorun"
done

# Profiling and dependency checks on one spec: the artifact writers and mode 3/4 paths.
tmp=$log/work
mkdir -p "$tmp"
run "compile softmax" "$ptoc" specs/softmax.yaml -o "$tmp/s.bundle" --emit cce,graph,report --emit-dir "$tmp/emit"
modes=(1 3 4)
((quick)) && modes=(1)
for mode in "${modes[@]}"; do
  run "ptorun mode $mode" "$ptorun" "$tmp/s.bundle" --dim B=37 --check --runtime-debug-mode $mode --dump-device-perf \
    --pmu-event-type 2 --output-dir "$tmp/out$mode"
done
run "ptorun info" "$ptorun" info "$tmp/s.bundle"
run "ptorun analyze" "$ptorun" analyze "$tmp/out1"

# Every regression spec the fuzzer and the bug reports left: the front end and the
# passes on inputs that once went wrong. A spec that is meant to be refused must be
# refused cleanly (exit 1), never with a sanitizer report or a crash.
for f in test/fuzz/found/fixed/*.yaml test/regress/specs/*.yaml test/regress_runtime/specs/*.yaml \
         test/regress_bufplan/specs/*.yaml test/conformance/failing/*.yaml; do
  [[ -f $f ]] || continue
  run "check $f" bash -c '"$0" check "$1"; rc=$?; [[ $rc -le 1 ]]' "$ptoc" "$f"
done

# The hostile command-line cases (devices, limits, GM beyond memory, signals).
run "hostile cli" bash test/hardening/hostile_cli.sh "$ptoc" "$ptorun" "$root"

run "crafted bundles" "$python" test/hardening/crafted_bundles.py "$ptoc" "$ptorun" "$root/$build/test/hardening/bundle_craft" "$root"

((fuzz)) && fuzz_runs

echo "sanitize: $((SECONDS - t0)) s in all"
echo "sanitize: $passed passed, $failed failed"
((failed == 0))
