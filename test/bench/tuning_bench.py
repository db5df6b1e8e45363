#!/usr/bin/env python3
"""The tuning-iteration benchmark (issue 14, items 4 and 5): what a user waits for per knob edit.

    test/bench/tuning_bench.py [--build-dir build] [--runs 5] [--quick] [--specs a.yaml,b.yaml]

For every library spec (specs/*.yaml, specs/examples/*.yaml), one tuning iteration is: rewrite the
spec's first tile directive to another valid shape (halve one extent: see edit_tile), `ptoc` with an
empty XDG_CACHE_HOME, `ptorun --timing-only --runtime-debug-mode 1 --dump-device-perf` (dynamic dims
at SIZES: roofline.py's, then the table below, else 64), `ptorun analyze` (the stage table). The table
prints the median of --runs iterations. (Until ptoc stopped compiling C++ on its default path, the
host-twin g++ stage dominated; with leaf programs ptoc runs no compiler.) The numerics run is the same
iteration with `ptorun --check` instead of the timing-only run, at the spec's test size (static dims above
1024 shrunk to 512, dynamic dims 64).

Columns: wall s of the iteration and of the numerics iteration, then CPU s (wait4 user + system of the
children, what the machine's load does not inflate): cpu = ptoc + run + analyze, run = the timing-only
ptorun, of which sim is the simulator (its own `simulator:` line; the rest is loading and, with
--runtime-debug-mode 1, writing the artifacts), anlz = `ptorun analyze`, num = the numerics iteration.
A spec over 1 s CPU timing-only or 2 s with numerics is listed at the end.

Then GEMM 6144^3 with M scaled 1x/2x/4x/8x (tasks scale alike): ptoc CPU seconds (its own passes,
from --time-passes, host twin excluded and warm), ptoc peak RSS, bundle bytes, and the peak RSS of
`ptorun info` and of `ptorun --timing-only` (each process's own, measured under GNU time: see child), and
beside the last the VmHWM ptorun prints on its simulator line, the same figure read from inside.

--quick: two specs, one run, GEMM 1x/2x only: the CI smoke test (checks every step runs and prints).
Builds nothing: it runs build/cli/ptoc and build/cli/ptorun.
"""
import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from roofline import SIZES as ROOFLINE_SIZES  # noqa: E402

# Stated sizes for dynamic dims in the timing-only run: roofline.py's (the library's stated sizes), and for
# the real operators it does not list, the size their notes measure; any other dynamic dim runs at 64.
SIZES = dict(ROOFLINE_SIZES)
SIZES.update({
    'lightning_indexer_prolog': {'T': 8, 'NB': 2048},  # note7: the in-place cache point (173 tasks)
})
# A dynamic dim whose declared max is below the numerics run's 64 (port6a: Kimi's L <= l_max 32).
NUMERICS_SIZES = {'block_attn_res': {'L': 26}}
QUICK_SPECS = ['specs/rmsnorm.yaml', 'specs/matmul.yaml']


def gnu_time():
    """/usr/bin/time when it is GNU time (it reports its command's own wait4 maxrss with -f %M), else None."""
    path = '/usr/bin/time'
    try:
        r = subprocess.run([path, '--version'], capture_output=True, text=True)
        ok = 'GNU Time' in r.stdout + r.stderr  # 'time (GNU Time) 1.9' on stdout
    except OSError:
        return None
    return path if ok else None


GNU_TIME = gnu_time()


def child(argv, env, rss=False):
    """Runs argv with its own rusage: (returncode, stdout, stderr, wall s, cpu s, peak RSS KiB or None).

    The peak RSS is not wait4's ru_maxrss of this child: Python starts it with vfork, and the kernel's exec
    keeps the high-water RSS of the address space it replaces, which is this Python process's (numpy, yaml:
    ~37 MiB), so any child smaller than Python read as Python. With rss=True the child runs under GNU time,
    which forks it from its own ~1 MiB image and prints the command's own ru_maxrss (exact above ~1 MiB);
    without GNU time the RSS is None."""
    measured = rss and GNU_TIME is not None
    t0 = time.monotonic()
    with tempfile.TemporaryFile('w+') as fo, tempfile.TemporaryFile('w+') as fe, \
            tempfile.NamedTemporaryFile('r') as fr:
        full = [GNU_TIME, '-f', '%M', '-o', fr.name] + argv if measured else argv
        p = subprocess.Popen(full, stdout=fo, stderr=fe, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        fo.seek(0)
        fe.seek(0)
        peak = None
        if measured:
            m = re.search(r'^(\d+)\s*$', fr.read(), re.M)  # a signalled command adds a 'Command terminated' line
            peak = int(m.group(1)) if m else None
        return os.waitstatus_to_exitcode(status), fo.read(), fe.read(), wall, ru.ru_utime + ru.ru_stime, peak


def mib(kib):
    """A peak RSS in KiB as MiB text, 'n/a' when it was not measured."""
    return 'n/a' if kib is None else f'{kib / 1024:.1f}'


def must(res, what):
    if res[0] != 0:
        sys.exit(f'tuning_bench: {what} failed ({res[0]}):\n{res[2]}{res[1]}')
    return res


def tile_edits(text):
    """Candidate edits, in order: each tile directive (cube_tile m, vec_tile) with one extent halved;
    yields (new text, what changed). The bench keeps the first that `ptoc check` accepts: a spec whose
    shapes follow its tiles (a reshape sized by a tile) refuses some edits, as it would a user's."""
    for m in re.finditer(r'cube_tile:\s*\{m:\s*\[(\d+),\s*(\d+)\]', text):
        a, b = int(m.group(1)), int(m.group(2))
        if a >= 32:
            new = m.group(0).replace(f'[{a}, {b}]', f'[{a // 2}, {b // 2}]', 1)
            yield text[:m.start()] + new + text[m.end():], f'cube m [{a},{b}]->[{a // 2},{b // 2}]', m.start()
    for v in re.finditer(r'vec_tile:\s*\[([\d,\s]+)\]', text):
        ext = [int(x) for x in v.group(1).split(',')]
        # halve an extent that stays a whole number of 32-byte blocks or rows
        for i, e in enumerate(ext):
            if e >= 2 and e % 2 == 0 and (i < len(ext) - 1 or e >= 32):
                new_ext = list(ext)
                new_ext[i] = e // 2
                new = 'vec_tile: [' + ', '.join(map(str, new_ext)) + ']'
                yield text[:v.start()] + new + text[v.end():], f'vec {ext}->{new_ext}', v.start()


def edit_tile(text, accepts=lambda t: True):
    """The spec with its first tile directive changed (one extent halved) that `accepts` takes;
    (new text, what changed), or (text, 'none')."""
    for new, what, _ in sorted(tile_edits(text), key=lambda e: e[2]):
        if accepts(new):
            return new, what
    return text, 'none'


def spec_dims(text):
    """{name: value or None (dynamic)} from the spec's dims."""
    import yaml
    d = yaml.safe_load(text).get('dims') or {}
    def value(v):  # an int, `dynamic`, or {dynamic: true, ...} / {value: N}
        if isinstance(v, int):
            return v
        if isinstance(v, dict):
            return None if v.get('dynamic') else v.get('value')
        return None
    return {k: value(v) for k, v in d.items()}


def test_size(text):
    """The spec at the test size the suite checks it at (test/specs/spec_tests.py small_copy with its
    references.py entry: the reference's own small dims, else static dims above 1024 shrunk)."""
    import yaml
    sys.path.insert(0, os.path.join(ROOT, 'test', 'specs'))
    from references import REFERENCES
    from spec_tests import small_copy
    doc = yaml.safe_load(text)
    small, _, changed = small_copy(doc, REFERENCES.get(doc.get('name')))
    if not changed:
        return text
    return yaml.safe_dump(small, sort_keys=False, default_flow_style=None, width=1000)


# One iteration's figures: wall s (iter = the three steps; ptoc, host-twin g++, run, analyze) and CPU s of
# the same children (wait4 user + system; sim = the simulator's own line, the rest of `run` is loading,
# numerics or artifact writing).
Iteration = collections.namedtuple('Iteration', 'wall ptoc twin run analyze cpu ptoc_cpu run_cpu sim_cpu an_cpu')


class Bench:
    def __init__(self, build, tmp):
        self.ptoc = os.path.join(build, 'cli', 'ptoc')
        self.ptorun = os.path.join(build, 'cli', 'ptorun')
        for p in (self.ptoc, self.ptorun):
            if not os.path.exists(p):
                sys.exit(f'tuning_bench: {p} is missing: build it first')
        self.tmp = tmp
        self.n = 0

    def checks(self, text):
        """Does `ptoc check` accept the spec text?"""
        path = os.path.join(self.tmp, 'edit_check.yaml')
        with open(path, 'w') as f:
            f.write(text)
        return child([self.ptoc, 'check', path], dict(os.environ))[0] == 0

    def fresh(self):
        self.n += 1
        d = os.path.join(self.tmp, f'i{self.n}')
        os.makedirs(d)
        env = dict(os.environ)
        env['XDG_CACHE_HOME'] = os.path.join(d, 'cache')  # empty: nothing compiled before
        env['TILE_FWK_OUTPUT_DIR'] = os.path.join(d, 'out')
        return d, env

    def compile(self, spec_path, d, env, what, rss=False):
        bundle = os.path.join(d, 'b.bundle')
        r = must(child([self.ptoc, spec_path, '-o', bundle, '--time-passes'], env, rss), what)
        self.last_cpu = r[4]
        m = re.search(r'^\s*host_twin_build\s+([\d.]+)', r[1] + r[2], re.M)
        total = re.search(r'^\s*total\s+[\d.]+\s+([\d.]+)', r[1] + r[2], re.M)
        twin = re.search(r'^\s*host_twin_build\s+[\d.]+\s+([\d.]+)', r[1] + r[2], re.M)
        own_cpu = (float(total.group(1)) - (float(twin.group(1)) if twin else 0)) / 1e3 if total else r[4]
        return bundle, r[3], (float(m.group(1)) / 1e3 if m else 0.0), own_cpu, r[5]

    def iteration(self, spec, text, numerics):
        d, env = self.fresh()
        name = os.path.splitext(os.path.basename(spec))[0]
        src = test_size(text) if numerics else text
        path = os.path.join(d, os.path.basename(spec))
        with open(path, 'w') as f:
            f.write(src)
        t0 = time.monotonic()
        bundle, ptoc_s, twin_s, _, _ = self.compile(path, d, env, f'ptoc {spec}')
        ptoc_cpu = self.last_cpu
        dims = spec_dims(src)
        argv = [self.ptorun, bundle]
        for k, v in dims.items():
            if v is None:
                size = NUMERICS_SIZES.get(name, {}).get(k, 64) if numerics else SIZES.get(name, {}).get(k, 64)
                argv += ['--dim', f'{k}={size}']
        out = os.path.join(d, 'out')
        if numerics:
            r = must(child(argv + ['--check'], env), f'ptorun --check {spec}')
        else:
            r = must(child(argv + ['--timing-only', '--runtime-debug-mode', '1', '--dump-device-perf',
                                   '--output-dir', out], env), f'ptorun --timing-only {spec}')
        run_s, run_cpu = r[3], r[4]
        sim = re.search(r'simulator: .* in ([\d.]+) host CPU s', r[1] + r[2])
        sim_cpu = float(sim.group(1)) if sim else 0.0
        an_s = an_cpu = 0.0
        if not numerics:
            a = must(child([self.ptorun, 'analyze', out], env), f'ptorun analyze {spec}')
            an_s, an_cpu = a[3], a[4]
        total = time.monotonic() - t0
        shutil.rmtree(d, ignore_errors=True)
        return Iteration(total, ptoc_s, twin_s, run_s, an_s, ptoc_cpu + run_cpu + an_cpu, ptoc_cpu, run_cpu,
                         sim_cpu, an_cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--specs', default='', help='comma-separated spec paths (default: the library)')
    ap.add_argument('--no-gemm', action='store_true', help='skip the GEMM scaling table')
    args = ap.parse_args()
    runs = 1 if args.quick else args.runs
    if args.specs:
        specs = args.specs.split(',')
    elif args.quick:
        specs = QUICK_SPECS
    else:
        specs = sorted(os.path.relpath(os.path.join(dp, f), ROOT)
                       for dp in (os.path.join(ROOT, 'specs'), os.path.join(ROOT, 'specs', 'examples'))
                       for f in os.listdir(dp) if f.endswith('.yaml'))
    tmp = tempfile.mkdtemp(prefix='tuning_bench-')
    try:
        b = Bench(os.path.abspath(args.build_dir), tmp)
        print(f'tuning iteration: edit a tile shape -> ptoc (empty cache) -> ptorun --timing-only '
              f'--runtime-debug-mode 1 -> ptorun analyze; median of {runs} (wall s; CPU s of the children)')
        print(f'{"spec":<46} {"edit":<42} | {"iter":>5} {"num":>5} | {"cpu":>5} {"ptoc":>5} {"run":>5} {"sim":>5} '
              f'{"anlz":>5} {"num":>5}')
        print(f'{"":<46} {"":<42} | {"wall s":^11} | {"CPU s":^35}')
        worst, worst_cpu, misses = 0.0, 0.0, []
        for spec in specs:
            text, what = edit_tile(open(os.path.join(ROOT, spec)).read(), lambda t: b.checks(t))
            if what == 'none':
                what = 'none (no tile directive to edit)'
            it = [b.iteration(spec, text, False) for _ in range(runs)]
            nu = [b.iteration(spec, text, True) for _ in range(runs)]
            med = lambda xs, k: statistics.median(getattr(x, k) for x in xs)
            worst = max(worst, med(it, 'wall'))
            worst_cpu = max(worst_cpu, med(it, 'cpu'))
            if med(it, 'cpu') > 1.0 or med(nu, 'cpu') > 2.0:
                misses.append(f'{spec} ({med(it, "cpu"):.2f} / {med(nu, "cpu"):.2f} CPU s)')
            print(f'{spec:<46} {what:<42} | {med(it, "wall"):5.2f} {med(nu, "wall"):5.2f} | {med(it, "cpu"):5.2f} '
                  f'{med(it, "ptoc_cpu"):5.2f} {med(it, "run_cpu"):5.2f} {med(it, "sim_cpu"):5.2f} '
                  f'{med(it, "an_cpu"):5.2f} {med(nu, "cpu"):5.2f}', flush=True)
        print(f'slowest iteration: {worst:.2f} s wall, {worst_cpu:.2f} s CPU (targets: 1 s timing-only, 2 s with numerics)')
        print(f'over a target (CPU, timing-only / numerics): {", ".join(misses) if misses else "none"}')
        if not args.no_gemm:
            print('\nGEMM 6144^3, M scaled (warm host-twin cache: ptoc CPU is its own passes, g++ excluded)')
            if GNU_TIME is None:
                print('(no GNU time at /usr/bin/time: the RSS columns are n/a; wait4 of a child started by '
                      'Python reads Python\'s own peak)')
            print(f'{"scale":<6} {"M":>6} {"tasks":>6} {"ptoc CPU s":>10} {"ptoc RSS MiB":>12} {"bundle KiB":>10} '
                  f'{"info RSS MiB":>12} {"timing RSS MiB":>14} {"timing VmHWM":>12}')
            base = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
            d, env = b.fresh()
            for f in ([1, 2] if args.quick else [1, 2, 4, 8]):
                path = os.path.join(d, f'gemm_{f}x.yaml')
                with open(path, 'w') as fh:
                    fh.write(base.replace('dims: {M: 6144,', f'dims: {{M: {6144 * f},'))
                b.compile(path, d, env, 'ptoc gemm (warm-up)')
                cpu, rss = [], []
                for _ in range(runs):
                    bundle, _, _, own_cpu, peak = b.compile(path, d, env, f'ptoc gemm {f}x', rss=True)
                    cpu.append(own_cpu)
                    rss.append(peak)
                info = must(child([b.ptorun, 'info', bundle], env, rss=True), 'ptorun info')
                tasks = re.search(r'root functions \(\d+, (\d+) tasks\)', info[1])
                tim = must(child([b.ptorun, bundle, '--timing-only'], env, rss=True), 'ptorun --timing-only')
                hwm = re.search(r'simulator: .*; peak RSS ([\d.]+) MiB', tim[1] + tim[2])
                print(f'{f}x{"":<4} {6144 * f:>6} {tasks.group(1) if tasks else "?":>6} {statistics.median(cpu):10.3f} '
                      f'{mib(statistics.median(rss) if None not in rss else None):>12} '
                      f'{os.path.getsize(bundle) / 1024:10.1f} {mib(info[5]):>12} {mib(tim[5]):>14} '
                      f'{hwm.group(1) if hwm else "?":>12}', flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
