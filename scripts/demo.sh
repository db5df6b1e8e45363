#!/usr/bin/env bash
# The main job on a bundled example: set up, compile a library spec, run it on
# the simulated Ascend machine with profiling on and its numerics checked
# against the reference evaluator, print the stage table and where the
# swimlane is. Usage: scripts/demo.sh [SPEC] (default specs/rmsnorm.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
spec=${1:-specs/rmsnorm.yaml}
name=$(basename "$spec" .yaml)
work=build/demo
mkdir -p "$work"

echo "== ptoc $spec -o $work/$name.bundle"
build/cli/ptoc "$spec" -o "$work/$name.bundle" --emit report --emit-dir "$work/$name.emit"
build/cli/ptorun info "$work/$name.bundle" | head -n 20

echo
echo "== ptorun $work/$name.bundle --check --runtime-debug-mode 1 --dump-device-perf"
build/cli/ptorun "$work/$name.bundle" --check --runtime-debug-mode 1 --dump-device-perf --output-dir "$work/output"

run=$(ls -td "$work"/output/output_* | head -n 1)
echo
echo "== ptorun analyze $run"
build/cli/ptorun analyze "$run"
echo
echo "swimlane: $run/merged_swimlane.json (open it at https://ui.perfetto.dev or with PyPTO Toolkit)"
