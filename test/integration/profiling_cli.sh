#!/usr/bin/env bash
# The collect -> analyse loop through the command line: every switch writes its files into one
# output_<timestamp>/ folder, `ptorun analyze` and `ptorun pmu-csv` read them back, environment
# variables work as in PyPTO, the PMU trace appears on 950 only, runtime_debug_mode 3 dumps and checks.
set -euo pipefail
ptoc=$1 ptorun=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
spec="$src/samples/make/specs/row_softmax.yaml"
"$ptoc" "$spec" -o "$tmp/b.bundle"

"$ptorun" "$tmp/b.bundle" --dim B=64 --runtime-debug-mode 1 --dump-device-perf --pmu-event-type 2 --rounds 3 \
  --output-dir "$tmp/out" > "$tmp/run.log"
run=$(ls -d "$tmp"/out/output_*)
for f in program.json merged_swimlane.json tilefwk_L1_prof_data.json dyn_topo.txt tilefwk_prof_pmu.csv \
         machine_trace_perf_data_0.json machine_runtime_operator_trace_0.json; do
  [ -s "$run/$f" ] || fail "$f missing or empty"
done
grep -q '"functions"' "$run/program.json" || fail "program.json has no functions"
grep -q "AICore Utilization:" "$run/run.log" 2>/dev/null || grep -q "AICore Utilization:" "$tmp/run.log" || fail "no terminal summary"
"$ptorun" analyze "$tmp/out" > "$tmp/analyze.log"
for r in round1 round2 round3; do grep -q " $r " "$tmp/analyze.log" || fail "analyze shows no $r"; done
grep -q "| AICPU-CTRL-0" "$tmp/analyze.log" && grep -q "| AICore" "$tmp/analyze.log" || fail "analyze rows missing"
"$ptorun" pmu-csv "$run" > "$tmp/pmu.log"
grep -q "vec_busy_cycles" "$tmp/pmu.log" || fail "pmu-csv lacks the group 2 counters"

# PyPTO's environment variables instead of switches.
DUMP_DEVICE_PERF=true PYPTO_PROF_PMU_EVENT_TYPE=8 TILE_FWK_OUTPUT_DIR="$tmp/env" "$ptorun" "$tmp/b.bundle" --dim B=16 > /dev/null
envrun=$(ls -d "$tmp"/env/output_*)
[ -s "$envrun/machine_trace_perf_data_0.json" ] || fail "DUMP_DEVICE_PERF=true wrote no perf data"
head -n1 "$envrun/tilefwk_prof_pmu.csv" | grep -q "write_cache_hit" || fail "PYPTO_PROF_PMU_EVENT_TYPE=8 not honoured"

# The PMU trace: a clear message on 910B1, the msprof timeline on 950.
"$ptoc" "$spec" -o "$tmp/p910.bundle" --set codegen.enable_pmu_trace=true 2> "$tmp/p910.err" || fail "compile with pmu trace failed"
"$ptorun" "$tmp/p910.bundle" --dim B=16 --runtime-debug-mode 1 --output-dir "$tmp/p910" > "$tmp/p910.log"
grep -q "no PMU trace" "$tmp/p910.log" || fail "no message about the PMU trace on 910B1"
"$ptoc" "$spec" -o "$tmp/p950.bundle" --target ascend950pr --set codegen.enable_pmu_trace=true
"$ptorun" "$tmp/p950.bundle" --dim B=16 --runtime-debug-mode 1 --output-dir "$tmp/p950" > /dev/null
ls "$tmp"/p950/output_*/PROF_*/mindstudio_profiler_output/msprof_*.json > /dev/null || fail "no msprof json on 950"

# runtime_debug_mode 3: the dependency dump and check.
"$ptorun" "$tmp/b.bundle" --dim B=64 --runtime-debug-mode 3 --output-dir "$tmp/dep" > "$tmp/dep.log"
grep -q "dependency check: ok" "$tmp/dep.log" || fail "no dependency check verdict"
[ -s "$(ls -d "$tmp"/dep/output_*)/dep_verify_dump/mem_rawtensor_access.csv" ] || fail "no dependency dump"
echo "profiling cli: ok"
