#!/usr/bin/env python3
"""ptorun's memory follows a bundle's leaf classes, not its task count (issues 12 and 14, item 2).

    test/program/instance_memory_test.py PTOC PTORUN

A GEMM (specs/gemm_6144.yaml with K = 512, so that it compiles in a fraction of a second) at M = 6144
(288 tasks) and M = 49152 (2 304 tasks): the same leaf class, 8x the instance records. Each child's
peak RSS is its rusage, as reported by /usr/bin/time's wait4 (a child forked by Python itself would
count Python's own ~11 MiB before the exec); without /usr/bin/time, this process's wait4 rusage. `ptorun info` keeps the instance records as the bundle stores
them (never expanded into per-task copies), so its RSS at 8x must stay under 1.5x of 1x (main
before this change: 2.8x, 9.0 -> 25.3 MiB); it must still report every instance of the class. A
timing-only run holds the tasks of the device task in flight (all of them here: one root instance),
resolved from the records as they are issued; its bound is 3x (before: 3.9x).
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
    """(exit code, stdout, peak RSS KiB) of one child."""
    with tempfile.TemporaryFile('w+') as fo, tempfile.NamedTemporaryFile('r') as ft:
        wrap = [TIME, '-f', '%M', '-o', ft.name] if TIME else []
        p = subprocess.Popen(wrap + argv, stdout=fo, stderr=subprocess.STDOUT, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        fo.seek(0)
        rss = ru.ru_maxrss
        if TIME:
            rss = int(ft.read().strip().splitlines()[-1])
        return os.waitstatus_to_exitcode(status), fo.read(), rss


def main():
    ptoc, ptorun = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    base = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
    assert 'dims: {M: 6144, K: 6144,' in base
    fails = []
    with tempfile.TemporaryDirectory(prefix='instance_memory-') as tmp:
        rss = {}
        for f in (1, 8):
            spec = os.path.join(tmp, f'gemm_{f}x.yaml')
            with open(spec, 'w') as fh:
                fh.write(base.replace('dims: {M: 6144, K: 6144,', f'dims: {{M: {6144 * f}, K: 512,'))
            bundle = os.path.join(tmp, f'gemm_{f}x.bundle')
            rc, out, _ = run([ptoc, spec, '-o', bundle], tmp)
            if rc != 0:
                sys.exit(f'ptoc {spec} failed ({rc}):\n{out}')
            rc, info, info_rss = run([ptorun, 'info', bundle], tmp)
            if rc != 0:
                sys.exit(f'ptorun info {bundle} failed ({rc}):\n{info}')
            m = re.search(r'root functions \(1, (\d+) tasks\)', info)
            if not m:
                sys.exit(f'{f}x: info reports no single root function:\n{info}')
            tasks = int(m.group(1))
            if f == 1:
                tasks_1x = tasks
            elif tasks != 8 * tasks_1x:
                fails.append(f'{f}x: {tasks} tasks, not 8 x {tasks_1x}')
            # Classes and instance counts, read from the records.
            if not re.search(rf'leaf classes \(1, {tasks} instances\)', info) or \
                    not re.search(rf'class 0 +x{tasks} ', info):
                fails.append(f'{f}x: info does not report one class of {tasks} instances')
            rc, out, run_rss = run([ptorun, bundle, '--timing-only', '--output-dir', tmp], tmp)
            if rc != 0 or f'{tasks} tasks in 1 device tasks' not in out:
                sys.exit(f'ptorun {bundle} --timing-only failed ({rc}):\n{out}')
            rss[f] = (info_rss, run_rss)
            print(f'{f}x: {tasks} tasks, info peak RSS {info_rss / 1024:.1f} MiB, '
                  f'timing-only peak RSS {run_rss / 1024:.1f} MiB')
        info_ratio = rss[8][0] / rss[1][0]
        run_ratio = rss[8][1] / rss[1][1]
        print(f'8x / 1x: info {info_ratio:.2f} (bound 1.5), timing-only {run_ratio:.2f} (bound 3)')
        if info_ratio >= 1.5:
            fails.append(f'info RSS grows with the task count: 8x/1x = {info_ratio:.2f} >= 1.5')
        if run_ratio >= 3:
            fails.append(f'timing-only RSS grows faster than the tasks in flight: 8x/1x = {run_ratio:.2f} >= 3')
    for m in fails:
        print('FAIL:', m)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
