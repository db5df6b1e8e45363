#!/usr/bin/env python3
"""Compile cost of one-element tiles (issue 11, found/slow seed 9006604's shape): VecNBuffer's breadth merge.

    test/bench/tiny_tile_compile_bench.py [--build-dir build] [--baseline OLD_BUILD] [--runs 3] [--quick]

Compiles a transpose of [D, 128, 128] fp32 with `vec_tile: [1, 1, 1]` for D = 1, 2, 4 (16 384, 32 768
and 65 536 one-element tiles, one subgraph each). VecNBuffer's automatic N (members / 48 AIV cores)
makes each leaf absorb about 340 / 680 / 1 365 of them one at a time. Per size: the median over --runs
of ptoc's process CPU time (user + system, wait4 rusage), the breadth_merge stage's CPU from
`--time-passes`, the peak RSS, and the growth per doubling (quadratic: about 4x; linear: about 2x).

--baseline OLD_BUILD: also OLD_BUILD/cli/ptoc (e.g. the build before a change) beside it, the ratio
old / new, and whether both wrote the same bundle bytes (exit status 1 when they differ).
--quick: D = 1 only, one run (a smoke test: every step runs and prints; no speed asserted).
Builds nothing: it runs BUILD/cli/ptoc.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SPEC = """ptoc: 1
name: tiny_tiles
dims: {{D: {d}, A: 128, B: 128}}
inputs:
  x:
    dtype: fp32
    shape: [B, A, D]
outputs:
  y:
    dtype: fp32
    shape: [D, A, B]
options:
  pass:
    vec_nbuffer_setting: {{DEFAULT: 0}}
body:
- vec_tile: [1, 1, 1]
- t = transpose(x, 0, 2)
- y[0:, 0:, 0:] = t
"""


def compile_once(ptoc, spec, out, stage='breadth_merge'):
    """(exit code, cpu s, the stage's cpu s, peak RSS KiB, stderr) of one `ptoc --time-passes`."""
    with tempfile.TemporaryFile('w+') as fe, tempfile.TemporaryFile('w+') as fo:
        p = subprocess.Popen([ptoc, spec, '-o', out, '--time-passes'], stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        fe.seek(0)
        fo.seek(0)
        text = fo.read() + fe.read()
    m = re.search(r'^\s*' + stage + r'\s+[0-9.]+\s+([0-9.]+)', text, re.M)
    breadth = float(m.group(1)) / 1000.0 if m else float('nan')
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, breadth, ru.ru_maxrss, text


def measure(ptoc, spec, out, runs, stage='breadth_merge'):
    """Medians over `runs` compiles of (cpu s, the stage's cpu s), the peak RSS MiB, and the bundle's bytes."""
    cpu, br, rss = [], [], []
    for _ in range(runs):
        rc, c, b, m, text = compile_once(ptoc, spec, out, stage)
        if rc != 0:
            sys.exit(f'{ptoc} {spec}: exit {rc}\n{text}')
        cpu.append(c)
        br.append(b)
        rss.append(m)
    with open(out, 'rb') as f:
        data = f.read()
    return statistics.median(cpu), statistics.median(br), max(rss) / 1024.0, data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--baseline', help='another build dir to compare with (its cli/ptoc)')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    sizes = [1] if a.quick else [1, 2, 4]
    runs = 1 if a.quick else a.runs
    builds = [('new', os.path.join(a.build_dir, 'cli', 'ptoc'))]
    if a.baseline:
        builds.insert(0, ('old', os.path.join(a.baseline, 'cli', 'ptoc')))
    same = True
    rows = []
    with tempfile.TemporaryDirectory(prefix='tiny-tile-bench-') as tmp:
        for d in sizes:
            spec = os.path.join(tmp, f'tiny_d{d}.yaml')
            with open(spec, 'w') as f:
                f.write(SPEC.format(d=d))
            res = {}
            for name, ptoc in builds:
                res[name] = measure(ptoc, spec, os.path.join(tmp, f'{name}_d{d}.bundle'), runs)
            if 'old' in res and res['old'][3] != res['new'][3]:
                same = False
            rows.append((d, res))
    print(f'one-element tiles, transpose [D, 128, 128] fp32, vec_tile [1, 1, 1]; median of {runs} run(s), CPU s')
    head = f'{"tiles":>7}'
    for name, _ in builds:
        head += f' {name + " cpu":>9} {name + " merge":>10} {name + " MiB":>8}'
    if a.baseline:
        head += f' {"old/new":>8} {"same bytes":>10}'
    print(head)
    prev = {}
    for d, res in rows:
        line = f'{d * 128 * 128:>7}'
        for name, _ in builds:
            c, b, m, _ = res[name]
            line += f' {c:>9.2f} {b:>10.2f} {m:>8.0f}'
        if a.baseline:
            line += f' {res["old"][0] / res["new"][0]:>8.2f} {str(res["old"][3] == res["new"][3]):>10}'
        print(line)
        prev[d] = res
    if len(rows) > 1:
        for name, _ in builds:
            g = [f'{rows[i][1][name][0] / rows[i - 1][1][name][0]:.2f}x' for i in range(1, len(rows))]
            gm = [f'{rows[i][1][name][1] / rows[i - 1][1][name][1]:.2f}x' for i in range(1, len(rows))]
            print(f'{name}: CPU growth per doubling {" ".join(g)}; breadth_merge {" ".join(gm)}')
    if not same:
        print('the two builds wrote different bundles')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
