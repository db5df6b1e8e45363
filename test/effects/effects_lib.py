"""Running ptoc/ptorun and reading what a run wrote, for the tuning-effect tests.

Every reader parses a real artifact (the summary line, `ptorun info`, `ptorun analyze`, the PMU
CSV, the L1 prof data, dyn_topo.txt, the perf data): the tests assert on those, never on numbers
the driver computes itself from the spec.
"""
import csv
import glob
import json
import os
import re
import subprocess
import tempfile

SRC = os.environ.get('PTOC_SOURCE_ROOT', os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SPECS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'specs')


class Gap(Exception):
    """A tuning effect the toolchain does not reproduce yet: the test exits 77 (skipped) naming it."""


class Tools:
    def __init__(self, ptoc, ptorun, workdir=None):
        self.ptoc, self.ptorun = ptoc, ptorun
        base = workdir or os.environ.get('PTOC_BUILD_ROOT') or None
        self.work = tempfile.mkdtemp(prefix='effects-', dir=base)
        self.n = 0

    def path(self, name):
        return os.path.join(self.work, name)

    def _run(self, cmd):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise AssertionError('command failed (exit %d): %s\n%s%s' % (p.returncode, ' '.join(cmd), p.stdout, p.stderr))
        return p.stdout + p.stderr

    def compile(self, spec, sets=(), name=None):
        """ptoc SPEC -o BUNDLE [--set ...]; SPEC relative to test/effects/specs or the source root."""
        if not os.path.isabs(spec):
            local = os.path.join(SPECS, spec)
            spec = local if os.path.exists(local) else os.path.join(SRC, spec)
        self.n += 1
        bundle = self.path('%s_%d.bundle' % (name or os.path.basename(spec).split('.')[0], self.n))
        cmd = [self.ptoc, spec, '-o', bundle]
        for s in sets:
            cmd += ['--set', s]
        self._run(cmd)
        return bundle

    def try_compile(self, spec):
        """(ok, diagnostics) without raising: for specs a known gap may reject."""
        p = subprocess.run([self.ptoc, os.path.join(SRC, spec), '-o', self.path('probe.bundle')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return p.returncode == 0, p.stdout + p.stderr

    def info(self, bundle):
        return Info(self._run([self.ptorun, 'info', bundle]))

    def run(self, bundle, dims=(), sets=(), timing_only=True, swimlane=True, perf=False, pmu=None, extra=()):
        """ptorun BUNDLE with the switches asked for; a Run with the parsed summary and its artifact folder."""
        self.n += 1
        base = self.path('run_%d' % self.n)
        cmd = [self.ptorun, bundle, '--output-dir', base]
        for d in dims:
            cmd += ['--dim', d]
        for s in sets:
            cmd += ['--set', s]
        if timing_only:
            cmd.append('--timing-only')
        if swimlane:
            cmd += ['--runtime-debug-mode', '1']
        if perf:
            cmd.append('--dump-device-perf')
        if pmu is not None:
            cmd += ['--pmu-event-type', str(pmu)]
        cmd += list(extra)
        out = self._run(cmd)
        folders = sorted(glob.glob(os.path.join(base, 'output_*')))
        return Run(out, folders[-1] if folders else None, self)


class Info:
    """`ptorun info`: leaf count and per-root task counts."""
    def __init__(self, text):
        self.text = text
        # leaves = instances (one per task of each root); each class of equal leaves is stored once
        m = re.search(r'^leaf classes \((\d+), (\d+) instances\)', text, re.M)
        self.leaves = int(m.group(2)) if m else None
        self.leaf_classes = int(m.group(1)) if m else None
        m = re.search(r'^root functions \((\d+), (\d+) tasks\)', text, re.M)
        self.roots, self.tasks = (int(m.group(1)), int(m.group(2))) if m else (None, None)


class Run:
    SUMMARY = re.compile(r'ran (\S+) on (\S+) \(simulated\): (\d+) tasks in (\d+) device tasks '
                         r'\((\d+) root-function instances\).*operator end-to-end ([0-9.]+) us')

    def __init__(self, out, folder, tools):
        self.out, self.folder, self.tools = out, folder, tools
        m = self.SUMMARY.search(out)
        if not m:
            raise AssertionError('no ptorun summary line in:\n' + out)
        self.tasks, self.device_tasks, self.roots = int(m.group(3)), int(m.group(4)), int(m.group(5))
        self.e2e_us = float(m.group(6))
        m = re.search(r'AICore End-to-End Time: ([0-9.]+)', out)
        self.aicore_us = float(m.group(1)) if m else None
        m = re.search(r'AICore Utilization: ([0-9.]+)%', out)
        self.utilization = float(m.group(1)) / 100 if m else None

    def file(self, name):
        p = os.path.join(self.folder, name)
        if not os.path.exists(p):
            raise AssertionError('%s was not written in %s' % (name, self.folder))
        return p

    # ---- tilefwk_L1_prof_data.json: per-core task spans (device ticks) ----
    def task_spans(self):
        data = json.load(open(self.file('tilefwk_L1_prof_data.json')))
        return [(t['execStart'], t['execEnd'], c['blockIdx'], t['taskId'], t['seqNo'])
                for c in data for t in c['tasks']]

    def gaps(self):
        """Intervals inside the kernels' span where no core runs a task: (count, total ticks)."""
        iv = sorted((s, e) for s, e, *_ in self.task_spans())
        n = total = 0
        end = iv[0][1]
        for s, e in iv[1:]:
            if s > end:
                n += 1
                total += s - end
            end = max(end, e)
        return n, total

    def peak_parallel(self):
        """Largest number of tasks running at one instant."""
        ev = []
        for s, e, *_ in self.task_spans():
            ev += [(s, 1), (e, -1)]
        cur = best = 0
        for _, d in sorted(ev, key=lambda x: (x[0], x[1])):  # ends before starts at the same tick
            cur += d
            best = max(best, cur)
        return best

    # ---- tilefwk_prof_pmu.csv ----
    def pmu_rows(self):
        return list(csv.DictReader(open(self.file('tilefwk_prof_pmu.csv'))))

    def pmu_sum(self, column, rows=None):
        return sum(int(r[column]) for r in (rows if rows is not None else self.pmu_rows()))

    # ---- dyn_topo.txt: tasks that have a predecessor (consumers) ----
    def consumer_tasks(self):
        rd = csv.reader(open(self.file('dyn_topo.txt')))
        head = next(rd)
        k = head.index('successors')
        out = set()
        for row in rd:
            for t in row[k:]:
                if t.strip():
                    out.add((row[0], t.strip()))
        return out

    # ---- machine_trace_perf_data_<N>.json and `ptorun analyze` ----
    def first_build_ticks(self):
        """Duration of the first DEV_TASK_BUILD on the Control AICPU lane (ticks of the device counter)."""
        (perf,) = glob.glob(os.path.join(self.folder, 'machine_trace_perf_data_*.json'))
        for lane in json.load(open(perf)):
            if lane['coreType'] != 'AICPU-CTRL':
                continue
            prev = None
            for t in lane['tasks']:
                if t['name'].startswith('DEV_TASK_BUILD'):
                    return t['end'] - prev
                prev = t['end']
        raise AssertionError('no DEV_TASK_BUILD event in ' + perf)

    def analyze(self):
        """Rows of `ptorun analyze FOLDER` for the first round: {unit: {column: float or None}}."""
        text = self.tools._run([self.tools.ptorun, 'analyze', self.folder])
        rows, cols = {}, None
        for line in text.splitlines():
            if not line.startswith('|'):
                continue
            cells = [c.strip() for c in line.strip('|').split('|')]
            if cells[0] == 'Compute Units':
                if cols is not None:
                    break  # second round
                cols = cells
                continue
            rows[cells[0]] = {c: (None if v == '-' else float(v)) for c, v in zip(cols[1:], cells[1:])}
        return rows
