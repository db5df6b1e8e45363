#!/usr/bin/env python3
"""Byte identity of two ptorun builds' simulated runs: the check behind every simulator speed-up.

    test/bench/compare_sim_runs.py OLD_PTORUN NEW_PTORUN [--ptoc build/cli/ptoc] [--specs a.yaml,...]
                                   [--rounds 3] [--keep DIR]

Every spec of specs/, specs/examples/ and test/conformance/specs/ is compiled once (one bundle for both
sides), then run by both ptoruns `--timing-only --runtime-debug-mode 1 --dump-device-perf` twice: as
shipped, and with the tuning bench's tile edit at its sizes (tuning_bench.py's SIZES for dynamic dims).
The run's stdout (host-time figures and the wall-clock paced progress lines masked), exit status and every artifact file must be byte-identical,
and so must `ptorun analyze`'s stage table. Exit 1 naming the first differing files when any differ.
Compile failures are skipped (counted): this compares ptorun, not ptoc.
"""
import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import tuning_bench as TB  # noqa: E402

MASK = [(re.compile(r'^ptorun: progress: .*\n', re.M), ''),  # wall-clock paced: which lines appear varies
        (re.compile(r'output_[0-9_]+[A-Za-z_]*'), 'output_STAMP'),
        (re.compile(r'(PROF|msprof)_[0-9_]+[A-Za-z_]*'), r'\1_STAMP'),
        (re.compile(r'host [0-9.]+ s'), 'host T s'),
        (re.compile(r'[0-9.]+ host CPU s.*'), ''),
        (re.compile(r'peak RSS [0-9.]+ MiB'), 'peak RSS R MiB')]


def mask(text):
    for rx, to in MASK:
        text = rx.sub(to, text)
    return text


def run(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return p.returncode, mask(p.stdout), mask(p.stderr)


def side(ptorun, bundle, extra, d):
    os.makedirs(d)
    rc, out, err = run([ptorun, bundle, '--timing-only', '--runtime-debug-mode', '1', '--dump-device-perf',
                        '--output-dir', 'run'] + extra, d)
    files = {}
    for dp, _, fs in os.walk(os.path.join(d, 'run')):
        for f in fs:
            files[mask(os.path.relpath(os.path.join(dp, f), os.path.join(d, 'run')).split(os.sep, 1)[-1])] = \
                os.path.join(dp, f)
    an = run([ptorun, 'analyze', 'run'], d) if rc == 0 else (0, '', '')
    return (rc, out, err, an), files


def compare(old, new, bundle, extra, d):
    """[] when identical, else a list of what differs."""
    o, of = side(old, bundle, extra, os.path.join(d, 'old'))
    n, nf = side(new, bundle, extra, os.path.join(d, 'new'))
    bad = []
    for what, a, b in (('exit status', o[0], n[0]), ('stdout', o[1], n[1]), ('stderr', o[2], n[2]),
                       ('analyze', o[3], n[3])):
        if a != b:
            bad.append(what)
    if sorted(of) != sorted(nf):
        bad.append(f'artifact list {sorted(of)} vs {sorted(nf)}')
    for f in sorted(set(of) & set(nf)):
        if not filecmp.cmp(of[f], nf[f], shallow=False):
            bad.append(f)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('old')
    ap.add_argument('new')
    ap.add_argument('--ptoc', default=os.path.join(ROOT, 'build', 'cli', 'ptoc'))
    ap.add_argument('--specs', default='')
    ap.add_argument('--rounds', type=int, default=1, help='also pass --rounds N (N > 1)')
    ap.add_argument('--keep', default='', help='work folder to keep (default: a temporary one, removed)')
    args = ap.parse_args()
    if args.specs:
        specs = args.specs.split(',')
    else:
        specs = sorted(os.path.relpath(os.path.join(dp, f), ROOT)
                       for dp in (os.path.join(ROOT, 'specs'), os.path.join(ROOT, 'specs', 'examples'),
                                  os.path.join(ROOT, 'test', 'conformance', 'specs'))
                       for f in os.listdir(dp) if f.endswith('.yaml'))
    tmp = args.keep or tempfile.mkdtemp(prefix='compare_sim_runs-')
    os.makedirs(tmp, exist_ok=True)
    env_cache = os.path.join(tmp, 'cache')
    os.environ['XDG_CACHE_HOME'] = env_cache
    n = skipped = differ = 0
    try:
        for spec in specs:
            text = open(os.path.join(ROOT, spec)).read()
            name = os.path.splitext(os.path.basename(spec))[0]
            edited, _ = TB.edit_tile(text)
            cases = [('shipped', text, [])]
            if edited != text:
                dims = TB.spec_dims(edited)
                cases.append(('edited', edited, [a for k, v in dims.items() if v is None
                                                 for a in ('--dim', f'{k}={TB.SIZES.get(name, {}).get(k, 64)}')]))
            for label, src, extra in cases:
                d = os.path.join(tmp, spec.replace('/', '_') + '.' + label)
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                path = os.path.join(d, os.path.basename(spec))
                with open(path, 'w') as f:
                    f.write(src)
                bundle = os.path.join(d, 'b.bundle')
                if subprocess.run([args.ptoc, path, '-o', bundle], capture_output=True).returncode != 0:
                    skipped += 1
                    continue
                if args.rounds > 1:
                    extra = extra + ['--rounds', str(args.rounds)]
                bad = compare(args.old, args.new, bundle, extra, d)
                n += 1
                if bad:
                    differ += 1
                    print(f'DIFF {spec} ({label}): {", ".join(bad[:5])}', flush=True)
                elif not args.keep:
                    shutil.rmtree(d, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f'byte identity of simulated runs: {n} runs, {differ} differ ({skipped} specs did not compile)')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
