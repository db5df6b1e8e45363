#!/usr/bin/env python3
"""GEMM compile cost against problem size (issue 14, item 3): family path vs explicit path.

    test/bench/gemm_compile_bench.py [--build-dir build] [--runs 3] [--quick] [--baseline OLD_BUILD] [--stages]

Compiles specs/gemm_6144.yaml with M scaled 1x/2x/4x/8x, once as shipped (tile families, lazy
leaf copies) and once with --no-families (the explicit path: every tile op partitioned, every
leaf plan materialised). Per point and path: the median over --runs of ptoc's process CPU time
(user + system, wait4 rusage) and peak RSS, the bundle size, and whether the two paths wrote the
same bundle bytes. Then the growth 8x/1x and the issue's targets (<= 100 ms CPU and <= 64 MiB at
1x, 8x within 2x of 1x), each with its ratio (value / target; <= 1 meets it, '!' marks a miss).

--baseline OLD_BUILD: also OLD_BUILD/cli/ptoc's family path (e.g. main's, before a change), its CPU
ms and MiB beside the others and the ratio new / old; its bundle must be the same bytes too.
--stages: also the per-stage CPU ms of the family path at 1x (`ptoc --time-passes`, median of --runs),
this build's and the baseline's side by side.
--quick: 1x and 2x, one run (the CI smoke test: every step runs and prints; no speed asserted).
Exit status 1 when the paths' bundles differ (an invariant, not a speed).
Builds nothing: it runs BUILD/cli/ptoc.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(argv):
    """(exit code, stderr, wall s, cpu s, peak RSS KiB) of one child."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile('w+') as fe:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        fe.seek(0)
        return (os.waitstatus_to_exitcode(status), fe.read(), time.monotonic() - t0, ru.ru_utime + ru.ru_stime,
                ru.ru_maxrss)


def stage_cpu(exe, spec, out, runs):
    """Median CPU ms per `--time-passes` line (tiler sub-stages indented by two more spaces), in order."""
    per = {}
    for _ in range(runs):
        rc, err, _, _, _ = run([exe, spec, '-o', out, '--time-passes'])
        if rc != 0:
            sys.exit(f'gemm_compile_bench: ptoc {spec} --time-passes failed ({rc}):\n{err}')
        seen = False
        for line in err.splitlines():
            if line.startswith('pass times'):
                seen = True
                continue
            parts = line.rsplit(None, 2)
            if not seen or len(parts) != 3 or not line.startswith('  '):
                continue
            try:
                cpu = float(parts[2])
            except ValueError:
                continue
            name = ('  ' if line.startswith('    ') else '') + parts[0].strip()
            per.setdefault(name, []).append(cpu)
    return {k: statistics.median(v) for k, v in per.items()}


def print_stages(ptoc, old_ptoc, spec, out, runs):
    new = stage_cpu(ptoc, spec, out, runs)
    old = stage_cpu(old_ptoc, spec, out, runs) if old_ptoc else {}
    print(f'\nper stage at 1x, family path (CPU ms, median of {runs}; lines under 0.5 ms in both left out)')
    print(f'{"stage":<36} {"this":>9}' + (f' {"baseline":>9}' if old_ptoc else ''))
    for name, ms in new.items():
        if ms < 0.5 and old.get(name, 0) < 0.5 and name != 'total':
            continue
        print(f'{name:<36} {ms:9.1f}' + (f' {old.get(name, float("nan")):9.1f}' if old_ptoc else ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--baseline', help='a build dir of the ptoc to compare against (its family path)')
    ap.add_argument('--stages', action='store_true', help='per-stage CPU ms at 1x (ptoc --time-passes)')
    args = ap.parse_args()
    ptoc = os.path.join(os.path.abspath(args.build_dir), 'cli', 'ptoc')
    old_ptoc = os.path.join(os.path.abspath(args.baseline), 'cli', 'ptoc') if args.baseline else None
    runs = 1 if args.quick else args.runs
    scales = [1, 2] if args.quick else [1, 2, 4, 8]
    base = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
    tmp = tempfile.mkdtemp(prefix='gemm_compile_bench-')
    env_note = f'{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}'
    same_all = True
    rows = {}
    try:
        print(f'ptoc gemm 6144^3 with M scaled: median of {runs} (process CPU ms, peak RSS MiB); {env_note}')
        print(f'{"scale":<6} {"M":>6} {"family ms":>10} {"MiB":>7} {"explicit ms":>12} {"MiB":>7} '
              f'{"CPU ratio":>9} {"RSS ratio":>9} {"bundle KiB":>10} {"same bytes":>10}' +
              (f' {"baseline ms":>11} {"MiB":>7} {"new/old":>7}' if old_ptoc else ''))
        for f in scales:
            spec = os.path.join(tmp, f'gemm_{f}x.yaml')
            with open(spec, 'w') as fh:
                fh.write(base.replace('dims: {M: 6144,', f'dims: {{M: {6144 * f},'))
            res = {}
            paths = [('family', ptoc, []), ('explicit', ptoc, ['--no-families'])]
            if old_ptoc:
                paths.append(('baseline', old_ptoc, []))
            for path, exe, extra in paths:
                out = os.path.join(tmp, f'{path}_{f}x.bundle')
                cpu, rss = [], []
                for _ in range(runs):
                    rc, err, _, c, m = run([exe, spec, '-o', out] + extra)
                    if rc != 0:
                        sys.exit(f'gemm_compile_bench: ptoc {spec} {" ".join(extra)} failed ({rc}):\n{err}')
                    cpu.append(c * 1e3)
                    rss.append(m / 1024)
                res[path] = (statistics.median(cpu), statistics.median(rss), open(out, 'rb').read())
            same = res['family'][2] == res['explicit'][2] and (not old_ptoc or res['family'][2] == res['baseline'][2])
            same_all &= same
            fm, fr, fb = res['family']
            em, er, _ = res['explicit']
            rows[f] = (fm, fr)
            print(f'{f}x{"":<4} {6144 * f:>6} {fm:10.1f} {fr:7.1f} {em:12.1f} {er:7.1f} {fm / em:9.2f} {fr / er:9.2f} '
                  f'{len(fb) / 1024:10.1f} {"yes" if same else "NO":>10}' +
                  (f' {res["baseline"][0]:11.1f} {res["baseline"][1]:7.1f} {fm / res["baseline"][0]:7.2f}'
                   if old_ptoc else ''), flush=True)
        one, last = rows[scales[0]], rows[scales[-1]]
        growth = last[0] / one[0]
        print(f'\n{"figure":<44} {"value":>9} {"target":>9} {"ratio":>7}')
        for name, value, target in (('ptoc gemm 1x CPU ms (family path)', one[0], 100.0),
                                    ('ptoc gemm 1x peak RSS MiB (family path)', one[1], 64.0),
                                    (f'ptoc gemm {scales[-1]}x / 1x CPU (family path)', growth, 2.0)):
            ratio = value / target
            print(f'{name:<44} {value:9.2f} {target:9.2f} {ratio:6.2f}{"!" if ratio > 1 else " "}')
        if args.stages:
            print_stages(ptoc, old_ptoc, os.path.join(tmp, 'gemm_1x.yaml'), os.path.join(tmp, 'stages.bundle'), runs)
        if not same_all:
            print('gemm_compile_bench: the family, explicit (and baseline) paths wrote different bundles')
            return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
