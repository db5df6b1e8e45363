#!/usr/bin/env python3
"""ptorun's cost against a bundle's task count (issues 12 and 14, item 2): `ptorun info` and
`ptorun B --timing-only` on specs/gemm_6144.yaml with M scaled 1x/2x/4x/8x (1 152 .. 9 216 tasks of one
leaf class).

    test/program/ptorun_memory_bench.py [--build-dir build] [--ptorun PATH] [--runs 3] [--bundles DIR]

Per point: the median over --runs of the child's process CPU (user + system) and peak RSS (wait4
rusage, through /usr/bin/time when it exists: a child forked by Python counts Python's pages), and the
wall time (meaningless under load: the CPU column is the figure). --bundles DIR keeps the compiled
bundles there and reuses them (ptoc at 8x takes ~13 s CPU and ~2.3 GiB); --ptorun measures another
build's ptorun on the same bundles (e.g. main's, for the before column). Prints the 8x/1x ratios.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIME = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None


def run(argv, cwd):
    """(exit code, cpu s, peak RSS KiB, wall s) of one child."""
    with tempfile.NamedTemporaryFile('r') as ft:
        wrap = [TIME, '-f', '%U %S %M', '-o', ft.name] if TIME else []
        t0 = time.monotonic()
        p = subprocess.Popen(wrap + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        cpu, rss = ru.ru_utime + ru.ru_stime, ru.ru_maxrss
        if TIME:
            u, s, m = ft.read().split()[-3:]
            cpu, rss = float(u) + float(s), int(m)
        return os.waitstatus_to_exitcode(status), cpu, rss, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--ptorun')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--bundles')
    args = ap.parse_args()
    ptoc = os.path.join(os.path.abspath(args.build_dir), 'cli', 'ptoc')
    ptorun = os.path.abspath(args.ptorun or os.path.join(args.build_dir, 'cli', 'ptorun'))
    base = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
    keep = args.bundles or tempfile.mkdtemp(prefix='ptorun_memory_bench-')
    os.makedirs(keep, exist_ok=True)
    print(f'{ptorun}: median of {args.runs}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}')
    print(f'{"scale":<6} {"M":>6} {"info CPU s":>10} {"MiB":>7} {"wall s":>7} {"timing CPU s":>12} {"MiB":>7} {"wall s":>7}')
    rows = {}
    for f in (1, 2, 4, 8):
        bundle = os.path.join(keep, f'gemm_{f}x.bundle')
        if not os.path.exists(bundle):
            spec = os.path.join(keep, f'gemm_{f}x.yaml')
            with open(spec, 'w') as fh:
                fh.write(base.replace('dims: {M: 6144,', f'dims: {{M: {6144 * f},'))
            rc, *_ = run([ptoc, spec, '-o', bundle], keep)
            if rc != 0:
                raise SystemExit(f'ptoc {spec} failed ({rc})')
        res = []
        for argv in ([ptorun, 'info', bundle], [ptorun, bundle, '--timing-only', '--output-dir', keep]):
            pts = [run(argv, keep) for _ in range(args.runs)]
            if any(p[0] != 0 for p in pts):
                raise SystemExit(f'{" ".join(argv)} failed')
            res.append(tuple(statistics.median(p[k] for p in pts) for k in (1, 2, 3)))
        rows[f] = res
        (ic, im, iw), (tc, tm, tw) = res
        print(f'{f}x{"":<4} {6144 * f:>6} {ic:10.2f} {im / 1024:7.1f} {iw:7.2f} {tc:12.2f} {tm / 1024:7.1f} {tw:7.2f}',
              flush=True)
    print(f'8x / 1x RSS: info {rows[8][0][1] / rows[1][0][1]:.2f}, timing-only {rows[8][1][1] / rows[1][1][1]:.2f}')


if __name__ == '__main__':
    main()
