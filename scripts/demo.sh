#!/usr/bin/env bash
# The main job on a bundled example: set up, compile a library spec, run it on
# the simulated Ascend machine with profiling on and its numerics checked
# against the reference evaluator, print the stage table and where the
# swimlane is. Usage: scripts/demo.sh [SPEC [PTORUN ARGS...]]
# (default: specs/rmsnorm.yaml with --dim T=256; give the --dim values a dynamic spec needs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
spec=${1:-specs/rmsnorm.yaml}
if (($# > 1)); then run_args=("${@:2}"); elif (($# == 1)); then run_args=(); else run_args=(--dim T=256); fi
name=$(basename "$spec" .yaml)
work=build/demo
mkdir -p "$work"

echo "== ptoc $spec -o $work/$name.bundle"
build/cli/ptoc "$spec" -o "$work/$name.bundle" --emit report --emit-dir "$work/$name.emit"
build/cli/ptorun info "$work/$name.bundle" | sed -n '1,2p;/^root functions/,/^kernels/p' | head -n 12

echo
echo "== ptorun $work/$name.bundle ${run_args[*]} --check --runtime-debug-mode 1 --dump-device-perf"
build/cli/ptorun "$work/$name.bundle" "${run_args[@]}" --check --runtime-debug-mode 1 --dump-device-perf --output-dir "$work/output"

run=$(ls -td "$work"/output/output_* | head -n 1)
echo
echo "== ptorun analyze $run"
build/cli/ptorun analyze "$run"
echo
echo "swimlane: $run/merged_swimlane.json (open it at https://ui.perfetto.dev or with PyPTO Toolkit)"
