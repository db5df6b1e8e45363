#!/usr/bin/env python3
"""Compile cost of issue 12's two slow-compile edges: partition's peak count near the UB capacity and
buffer_plan's placement of leaves of thousands of live one-element buffers.

    test/bench/slow_compile_edges_bench.py [--build-dir build] [--baseline OLD_BUILD] [--runs 3] [--quick]
                                           [--full] [--seeds]

partition (fuzz seed 9004328's shape, test/fuzz/found/fixed/peak_bytes_near_capacity_seed9004328.yaml):
`vec_tile: [2, 1]` / `[1, 1]` in unroll gears of 8 x 32 rows over A columns, A = 16, 32, 64 (--full: and
128, the seed): one-element tiles per op grow with A, and the groups sit near UB's capacity, so most merges
are decided by an exact count. buffer_plan (seed 9006604's shape, tiny_tile_compile_bench.py's spec):
a transpose of [D, 128, 128] fp32 with `vec_tile: [1, 1, 1]`, D = 2, 4, 8 (--full: and 16, the seed's size;
32 768 to 262 144 one-element tiles).

--seeds: the slow fuzz seeds themselves, the specs of test/fuzz/found/fixed/ that took more than 1 CPU s
to compile (SEEDS below), each with its total CPU and partition's CPU.

Per size: the median over --runs of ptoc's process CPU (user + system, wait4 rusage) and of the stage's
CPU from `--time-passes`, and the growth per doubling (quadratic: about 4x; n log n: about 2x).
--baseline OLD_BUILD: OLD_BUILD/cli/ptoc beside it, the ratio old / new and whether both wrote the same
bundle bytes (exit status 1 when they differ). --quick: the smallest size of each, one run.
Builds nothing: it runs BUILD/cli/ptoc.
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_tile_compile_bench  # noqa: E402  (its spec and its timed compile)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PARTITION_SPEC = """ptoc: 1
name: fz
dims:
  D: {{dynamic: true, max: 4096}}
  A: {a}
inputs:
  in3:
    dtype: bf16
    shape: [1, 1]
  in5:
    dtype: fp16
    shape: [D, A]
outputs:
  out8:
    dtype: bf16
    shape: [D, A]
  out10:
    dtype: bf16
    shape: [D, A]
options:
  pass:
    vec_nbuffer_setting: {{MM: 1}}
    cube_l1_reuse_setting: {{ACT: 0}}
body:
- loop:
    var: b1
    count: ceil_div(D, 32)
    unroll: [8, 4]
    factor: k2
  body:
  - if: k2 >= 4
    then:
    - vec_tile: [2, 1]
    else:
    - vec_tile: [1, 1]
  - t4 = minimum(0.5, in3)
  - t6 = cast(in5[b1 * 32:(b1 + k2) * 32, 0:A], bf16)
  - t7 = maximum((t6 * t4), 0.5)
  - out8[b1 * 32:, 0:] = t7
- loop: {{var: b9, count: 'ceil_div(D, 4)'}}
  body:
  - out10[b9 * 4:, 0:] = out8[b9 * 4:(b9 + 1) * 4, 0:A]
  - {{label: ACT}}
"""

# The found/fixed specs that compile in over 1 CPU s (2026-12-02), slowest first.
SEEDS = [
    'family_segments_scan_seed9101331', 'transpose_unit_tiles_seed9006604', 'gm_edges_slow_seed7000477',
    'peak_bytes_near_capacity_seed9004328', 'vec_nbuffer_order_seed9100006', 'scan_valid_blowup_seed9402238',
    'families_task_count_seed9101076', 'dense_gm_edges_seed9000475', 'insert_sync_scope_leaf_seed9600099',
    'peak_bytes_slow_seed9001608',
]
FOUND_FIXED = os.path.join(ROOT, 'test', 'fuzz', 'found', 'fixed')

# one-element transpose tiles: the tiny-tile bench's spec
TRANSPOSE_SPEC = tiny_tile_compile_bench.SPEC


def measure(ptoc, spec, out, runs, stage):
    cpu, st, _, data = tiny_tile_compile_bench.measure(ptoc, spec, out, runs, stage)
    return cpu, st, data


def table(title, unit, stage, cases, builds, runs, tmp, growth=True):
    """cases: [(size label, spec text or ('file', path))]. Prints one table; returns whether the builds agree."""
    rows = []
    same = True
    for label, text in cases:
        if isinstance(text, tuple):
            spec = text[1]
        else:
            spec = os.path.join(tmp, f'{stage}_{label}.yaml')
            with open(spec, 'w') as f:
                f.write(text)
        res = {name: measure(ptoc, spec, os.path.join(tmp, f'{name}_{stage}_{label}.bundle'), runs, stage)
               for name, ptoc in builds}
        if 'old' in res and res['old'][2] != res['new'][2]:
            same = False
        rows.append((label, res))
    print(f'{title}; median of {runs} run(s), CPU s')
    width = max([8] + [len(label) for label, _ in cases])
    head = f'{unit:>{width}}'
    for name, _ in builds:
        head += f' {name + " cpu":>9} {name + " " + stage:>{max(10, len(stage) + 5)}}'
    if len(builds) > 1:
        head += f' {"old/new":>8} {stage + " old/new":>{len(stage) + 9}} {"same bytes":>10}'
    print(head)
    for label, res in rows:
        line = f'{label:>{width}}'
        for name, _ in builds:
            c, s, _ = res[name]
            line += f' {c:>9.2f} {s:>{max(10, len(stage) + 5)}.2f}'
        if len(builds) > 1:
            o, n = res['old'], res['new']
            line += f' {o[0] / n[0]:>8.2f} {o[1] / max(n[1], 1e-3):>{len(stage) + 9}.1f} {str(o[2] == n[2]):>10}'
        print(line)
    if growth and len(rows) > 1:
        for name, _ in builds:
            g = [f'{rows[i][1][name][1] / max(rows[i - 1][1][name][1], 1e-3):.2f}x' for i in range(1, len(rows))]
            print(f'{name}: {stage} CPU growth per doubling {" ".join(g)}')
    print()
    return same


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--baseline', help='another build dir to compare with (its cli/ptoc)')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--full', action='store_true',
                    help='also A = 128 and D = 16 (the seeds; > 50 s and 18 s CPU each on the old build)')
    ap.add_argument('--seeds', action='store_true', help='also the slow found/fixed specs (SEEDS)')
    a = ap.parse_args()
    runs = 1 if a.quick else a.runs
    builds = [('new', os.path.join(a.build_dir, 'cli', 'ptoc'))]
    if a.baseline:
        builds.insert(0, ('old', os.path.join(a.baseline, 'cli', 'ptoc')))
    cols = [16] if a.quick else [16, 32, 64] + ([128] if a.full else [])
    ds = [1] if a.quick else [2, 4, 8] + ([16] if a.full else [])
    with tempfile.TemporaryDirectory(prefix='slow-edges-bench-') as tmp:
        same = table('partition: seed 9004328 shape, A columns (one-element tiles per op ~ A)', 'A', 'partition',
                     [(str(c), PARTITION_SPEC.format(a=c)) for c in cols], builds, runs, tmp)
        same &= table('buffer_plan: transpose [D, 128, 128] fp32, vec_tile [1, 1, 1]', 'tiles', 'buffer_plan',
                      [(str(d * 128 * 128), TRANSPOSE_SPEC.format(d=d)) for d in ds], builds, runs, tmp)
        if a.seeds:
            same &= table('slow fuzz seeds (test/fuzz/found/fixed/)', 'spec', 'partition',
                          [(n, ('file', os.path.join(FOUND_FIXED, n + '.yaml'))) for n in SEEDS], builds, runs, tmp,
                          growth=False)
    if not same:
        print('the two builds wrote different bundles')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
