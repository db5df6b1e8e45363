#!/usr/bin/env python3
"""A timing-only run holds the GM accesses of the tasks running, not of every task of the device task in
flight (issue 14: a GEMM is one device task, so the old walk held all its tasks' accesses).

    test/program/timing_only_memory_test.py PTOC PTORUN

specs/gemm_6144.yaml with N = 1536 (K = 6144 kept: a task reads its whole K extent of A and of NZ B, tens of
strided windows) at M = 6144 (288 tasks) and M = 24576 (1152 tasks), one root instance each, run
`ptorun --timing-only`. Peak RSS of each child from /usr/bin/time (see instance_memory_test.py). The
growth per added task must stay under 2 KiB: main before the lazy accesses grew 3.3 KiB per task
(7.7 -> 10.5 MiB), after 1.1-1.2 (7.3 -> 8.2 MiB). That the lazy walk's tasks, edges and accesses
are the eager walk's is test_lazy_accesses.cpp's check.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIME = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None


def run(argv, cwd):
    """(exit code, output, peak RSS KiB) of one child."""
    with tempfile.TemporaryFile('w+') as fo, tempfile.NamedTemporaryFile('r') as ft:
        wrap = [TIME, '-f', '%M', '-o', ft.name] if TIME else []
        p = subprocess.Popen(wrap + argv, stdout=fo, stderr=subprocess.STDOUT, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        fo.seek(0)
        rss = int(ft.read().strip().splitlines()[-1]) if TIME else ru.ru_maxrss
        return os.waitstatus_to_exitcode(status), fo.read(), rss


def main():
    ptoc, ptorun = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    base = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
    assert 'dims: {M: 6144, K: 6144, N: 6144}' in base
    fails = []
    rss, tasks = {}, {}
    with tempfile.TemporaryDirectory(prefix='timing_only_memory-') as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
        for m in (6144, 24576):
            spec = os.path.join(tmp, f'gemm_m{m}.yaml')
            with open(spec, 'w') as fh:
                fh.write(base.replace('dims: {M: 6144, K: 6144, N: 6144}', f'dims: {{M: {m}, K: 6144, N: 1536}}'))
            bundle = os.path.join(tmp, f'gemm_m{m}.bundle')
            rc, out, _ = run([ptoc, spec, '-o', bundle], tmp)
            if rc != 0:
                sys.exit(f'ptoc {spec} failed ({rc}):\n{out}')
            rc, out, r = run([ptorun, bundle, '--timing-only', '--output-dir', tmp], tmp)
            found = re.search(r'(\d+) tasks in 1 device tasks \(1 root-function instances\)', out)
            if rc != 0 or not found:
                sys.exit(f'ptorun {bundle} --timing-only failed ({rc}) or is not one device task:\n{out}')
            tasks[m], rss[m] = int(found.group(1)), r
            print(f'M={m}: {tasks[m]} tasks, timing-only peak RSS {r / 1024:.1f} MiB')
    if tasks[24576] != 4 * tasks[6144]:
        fails.append(f'{tasks[24576]} tasks at 4x M, not 4 x {tasks[6144]}')
    per_task = (rss[24576] - rss[6144]) / max(1, tasks[24576] - tasks[6144])
    print(f'growth {per_task:.2f} KiB per added task (bound 2; 3.3 with every task\'s accesses held)')
    if per_task >= 2:
        fails.append(f'timing-only RSS grows {per_task:.2f} KiB per task of the device task (>= 2 KiB): '
                     'the accesses of tasks not running are held')
    for f in fails:
        print('FAIL:', f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
