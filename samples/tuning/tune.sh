#!/usr/bin/env bash
# The tuning loop of samples/tuning/README.md: for each step, check the numbers, collect a swimlane and
# the AICPU/AICore stage data on the simulator, and print the analyze table; then sweep the stitch size.
#   samples/tuning/tune.sh [T]        (T: token count, default 8192)
# PTOC / PTORUN / OUT override the tools and the output folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PTOC=${PTOC:-$root/build/cli/ptoc}
PTORUN=${PTORUN:-$root/build/cli/ptorun}
OUT=${OUT:-$root/build/tuning}
T=${1:-8192}
mkdir -p "$OUT"

for step in rmsnorm_0_baseline rmsnorm_1_loop rmsnorm_2_tiles rmsnorm_3_stitch; do
  echo "=== $step (T=$T)"
  "$PTOC" "$here/$step.yaml" -o "$OUT/$step.bundle" --emit report --emit-dir "$OUT/$step.report"
  # Numbers first: the host twin against the reference evaluator, on a small odd size.
  "$PTORUN" "$OUT/$step.bundle" --dim T=37 --check
  # Collect: swimlane (runtime_debug_mode 1) and AICPU/AICore stage data; timing only.
  "$PTORUN" "$OUT/$step.bundle" --dim T="$T" --timing-only --runtime-debug-mode 1 --dump-device-perf \
    --output-dir "$OUT/$step.run"
  # Analyse: the per-round stage table (is it scheduling or execution?).
  "$PTORUN" analyze "$OUT/$step.run"
done

# Deep tuning: the stitch size moves end-to-end time both ways (too small: gaps; too large: slow first build).
for stitch in 1 4 16 64 256 1024; do
  echo "=== rmsnorm_2_tiles, stitch_function_max_num=$stitch"
  "$PTORUN" "$OUT/rmsnorm_2_tiles.bundle" --dim T="$T" --timing-only --dump-device-perf \
    --set runtime.stitch_function_max_num="$stitch" --output-dir "$OUT/stitch_$stitch.run"
  "$PTORUN" analyze "$OUT/stitch_$stitch.run"
done
