#!/usr/bin/env python3
"""The tuning loop's ptorun on the edited GEMM (issue 14): specs/gemm_6144.yaml with its cube tile halved
(2 304 tasks in one root function, a 19 MB program.json), run `--timing-only --runtime-debug-mode 1`.

    test/program/edited_gemm_run_test.py PTOC PTORUN

The Machine View's labels and operand hints come from the compiled program directly, not from
program.json rebuilt as text and parsed back (that held the 19 MB text and its parsed tree: 131 MiB peak
RSS before, about 66 after); the bound is 96 MiB. The hints must still be what draw_swim_lane.py derives
from the program.json written beside them: checked here, task by task, from that file.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from clitest import expect  # noqa: E402

ptoc, ptorun = sys.argv[1:3]
TIME = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None


def run(argv, env):
    """(exit code, output, peak RSS KiB) of one child (through /usr/bin/time when there: see instance_memory_test.py)."""
    with tempfile.TemporaryFile('w+') as fo, tempfile.NamedTemporaryFile('r') as ft:
        wrap = [TIME, '-f', '%M', '-o', ft.name] if TIME else []
        p = subprocess.Popen(wrap + argv, stdout=fo, stderr=subprocess.STDOUT, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        fo.seek(0)
        rss = int(ft.read().strip().splitlines()[-1]) if TIME else ru.ru_maxrss
        return os.waitstatus_to_exitcode(status), fo.read(), rss


with tempfile.TemporaryDirectory(prefix='edited-gemm-') as tmp:
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
    text = open(os.path.join(ROOT, 'specs', 'gemm_6144.yaml')).read()
    edited = re.sub(r'cube_tile: \{m: \[128, 128\]', 'cube_tile: {m: [64, 64]', text, count=1)
    expect(edited != text, 'the GEMM spec has the cube tile the tuning bench halves')
    spec = os.path.join(tmp, 'g.yaml')
    open(spec, 'w').write(edited)
    code, out, _ = run([ptoc, spec, '-o', os.path.join(tmp, 'g.bundle')], env)
    expect(code == 0, 'ptoc compiles the edited GEMM', out)
    code, out, rss = run([ptorun, os.path.join(tmp, 'g.bundle'), '--timing-only', '--runtime-debug-mode', '1', '-q',
                          '--output-dir', os.path.join(tmp, 'out')], env)
    expect(code == 0 and '2304 tasks' in out, 'ptorun runs its 2304 tasks with the swimlane on', out)
    expect(rss < 96 * 1024, f'its peak RSS {rss / 1024:.1f} MiB is under 96 MiB (131 when program.json was parsed back)')

    run_dir = glob.glob(os.path.join(tmp, 'out', 'output_*'))[0]
    prog = json.load(open(os.path.join(run_dir, 'program.json')))
    lane = json.load(open(os.path.join(run_dir, 'merged_swimlane.json')))
    events = lane['traceEvents'] if isinstance(lane, dict) else lane
    roots = {f['hash']: f for f in prog['functions'] if f.get('graphtype') == 2}

    def hint(func, magics):
        tensors = {t['magic']: t for t in func['tensors']}
        raws = {r['rawmagic']: r for r in func['rawtensors']}
        parts = []
        for m in dict.fromkeys(magics):
            t = tensors[m]
            r = raws[t['rawtensor']]
            parts.append(f"{{{m}: {{'shape': {t['shape']!r}, 'dtype': {r['datatype']!r}, 'rawmagic': {r['rawmagic']!r}}}}}")
        return '[' + ', '.join(parts) + ']'

    checked = 0
    for e in events:
        if e.get('ph') != 'X':
            continue
        h = re.search(r'rootHash:(\d+), callOpMagic:(\d+)', e['args']['event-hint'])
        func = roots[h.group(1)]
        op = next(o for o in func['operations'] if o['opmagic'] == int(h.group(2))) if checked < 64 else None
        if op is None:
            continue
        label = op.get('semantic_label', {}).get('label', '')
        if e['args']['ioperand-hint'] != hint(func, op['ioperands']) or \
                e['args']['ooperand-hint'] != hint(func, op['ooperands']) or not e['name'].endswith(f'({label})'):
            expect(False, 'a task\'s name and operand hints are program.json\'s', json.dumps(e)[:2000])
        checked += 1
    expect(checked == 64, f'{checked} tasks\' names and operand hints are program.json\'s')
