#!/usr/bin/env python3
"""Roofline report: every library spec's simulated time next to its roofline bound.

    roofline.py --build-dir BUILD [--quick]

For each spec in specs/ and specs/examples/ (dynamic dims bound to the size in SIZES), the spec's
work is read from `ptoc SPEC --emit ir` (the checked tensor graph):
  - cube FLOPs: 2*M*N*K of every matmul, times the trips of the loops around its root function;
  - vector bytes: the output bytes of every vector compute op (one 256-byte repeat per cycle per AIV
    is the vector roof);
  - HBM bytes: the inputs and outputs, each moved once (compulsory traffic).
The bound is max(FLOPs / peak cube, vector bytes / vector rate, HBM bytes / HBM bandwidth), the
constants printed by platform_json from runtime/platform.h (Platform::peak_cube_flops,
hbm_bytes_per_s: the same terms as Platform::roofline_seconds, plus the vector term). The simulated
time is ptorun's operator end-to-end time (Control AICPU start to the last core's exit, so it holds
~25 us of AICPU start-up) and the AICore end-to-end time (first task start to last task end).
Efficiency = bound / simulated time.

Then the simulated figures are set against published Ascend figures (ascend-platform.md §2.1).
--quick: a quarter of each dynamic size and no examples (the CI smoke test).
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Stated sizes for dynamic dims (the spec's max unless noted).
SIZES = {
    'softmax': {'B': 65536},
    'rmsnorm': {'T': 32768},
    'ffn_swiglu': {'T': 16384},
    'decode_attention': {'B': 512},
    'loop_unroll': {'T': 65536},
    'tail_view': {'B': 4096},
    'attention_prequant_prolog': {'T': 4096},
    'moe_router': {'T': 1024},  # PyPTO's glm_select_experts test runs 1026 tokens
    'moe_router_blocks': {'T': 1024},
    'sum_lstm': {'B': 128},  # --quick: 32, PyPTO's test_sum_lstm batch
    'glm_ffn_shared_expert_quant': {'T': 1024},  # ports7; --quick: 256 (PyPTO's test: 1, 2)
    'hc_pre': {'T': 1024},  # ports7; --quick: 256 (PyPTO's test: 16)
    'hc_pre_prefill': {'T': 1024},
    'block_attn_res': {'BT': 8192, 'L': 26},  # port6a: PyPTO's test b2_t4096_n25 (L <= l_max 32); --quick: 2048, 6
    'qat_asymmetric_per_group': {'NG': 12288},  # port6a: PyPTO's test N768-M2048-group128
    'gdr_l2norm_inverse': {'B': 4096},  # the spec's max; --quick: 1024
}
DTYPE_BYTES = {'fp16': 2, 'bf16': 2, 'fp32': 4, 'int8': 1, 'uint8': 1, 'int16': 2, 'int32': 4, 'int64': 8, 'bool': 1}
NO_COMPUTE = {'tensor', 'view', 'assemble', 'reshape', 'matmul'}
OP = re.compile(r'^\s+%(\d+)(?::\S+)? = (\w+) (.*?) : (\w+)\[([^\]]*)\]')


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout + p.stderr


def ev(expr, env):
    env = dict(env, ceil_div=lambda a, b: -(-a // b), min=min, max=max)
    return int(eval(expr, {'__builtins__': {}}, env))


def split_top(s):
    """Split at the commas outside parentheses: 'a, f(b, c), d' -> ['a', 'f(b, c)', 'd']."""
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        depth += (ch == '(') - (ch == ')')
        cur += ch
    return out + [cur.strip()]


class Work:
    """What one spec asks of the machine, from its IR, with the dims bound."""
    def __init__(self, ir, bind):
        self.dims, self.io, roots, trips = {}, [], {}, {}
        section, cur, loops = None, None, []
        for line in ir.splitlines():
            if line and not line.startswith(' '):
                section = line.split()[0]
                if section == 'root':
                    cur = line.split()[1]
                    roots[cur] = []
                continue
            s = line.strip()
            if section == 'dims' and '=' in s:
                name, val = [x.strip() for x in s.split('=', 1)]
                if val.startswith('dynamic') and name not in bind:
                    raise SystemExit('roofline.py: dynamic dim %s has no stated size: add it to SIZES' % name)
                self.dims[name] = bind[name] if val.startswith('dynamic') else int(val)
            elif section == 'tensors' and (s.startswith('input ') or s.startswith('output ')):
                m = re.match(r'(input|output) (\w+) : (\w+)\[([^\]]*)\]', s)
                shape = [ev(x, self.dims) for x in m.group(4).split(',')] if m.group(4).strip() else []
                self.io.append((m.group(2), DTYPE_BYTES[m.group(3)] * math.prod(shape)))
            elif section == 'structure' and s:
                depth = (len(line) - len(line.lstrip())) // 2
                loops = loops[:depth - 1] if depth > 1 else []
                m = re.match(r'loop \S+: \w+ in range\((.*)\)( factor \w+)?$', s)
                if m:
                    lo, hi, step = (ev(x, self.dims) for x in split_top(m.group(1)))
                    loops.append({'n': -(-(hi - lo) // step), 'gears': [] if not m.group(2) else None})
                    continue
                g = re.match(r'gear (\d+):', s)
                if g:
                    lp = loops[-1]
                    if lp['gears'] is None:
                        lp['gears'] = []
                    lp['gears'].append(int(g.group(1)))
                    loops.append({'gear': int(g.group(1))})
                    continue
                r = re.match(r'root (\S+)', s)
                if r:
                    trips[r.group(1)] = self._trips(loops)
            elif section == 'root' and cur is not None:
                m = OP.match(line)
                if m:
                    shape = [ev(x, self.dims) for x in m.group(5).split(',')] if m.group(5).strip() else []
                    roots[cur].append((int(m.group(1)), m.group(2), m.group(3), m.group(4), shape))
        self.cube_flops = self.vec_bytes = 0
        for name, ops in roots.items():
            t = trips.get(name, 1)
            shapes = {i: shape for i, _, _, _, shape in ops}
            for i, kind, args, dt, shape in ops:
                if kind == 'matmul':
                    a = int(re.match(r'%(\d+)', args).group(1))
                    k = shapes[a][-2] if 'trans_a' in args else shapes[a][-1]
                    self.cube_flops += t * 2 * math.prod(shape) * k
                elif kind not in NO_COMPUTE:
                    self.vec_bytes += t * math.prod(shape) * DTYPE_BYTES.get(dt, 4)
        self.hbm_bytes = sum(b for _, b in self.io)

    @staticmethod
    def _trips(loops):
        # Loops multiply; an unrolled loop's iterations go to its gears greedily, largest first
        # (the runtime's choice: fewest iterations, no empty work).
        t = 1
        for i, lp in enumerate(loops):
            if 'gear' in lp:
                continue
            if lp['gears'] and i + 1 < len(loops) and 'gear' in loops[i + 1]:
                left, mine = lp['n'], 0
                for g in sorted(lp['gears'], reverse=True):
                    cnt, left = left // g, left % g
                    if g == loops[i + 1]['gear']:
                        mine = cnt
                t *= mine
            else:
                t *= lp['n']
        return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build-dir', required=True)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    ptoc, ptorun = (os.path.join(a.build_dir, 'cli', x) for x in ('ptoc', 'ptorun'))
    rc, out = run([os.path.join(a.build_dir, 'test', 'bench', 'platform_json')])
    if rc:
        sys.exit('platform_json failed: ' + out)
    plats = json.loads(out)
    specs = sorted(glob.glob(os.path.join(SRC, 'specs', '*.yaml')))
    if not a.quick:
        specs += sorted(glob.glob(os.path.join(SRC, 'specs', 'examples', '*.yaml')))
    work = tempfile.mkdtemp(prefix='roofline-')
    print('%-26s %-13s %9s %9s %9s %7s %10s %10s %10s %6s %6s %6s' % (
        'spec', 'size', 'GFLOP', 'vec MB', 'HBM MB', 'bound', 'bound us', 'sim e2e us', 'AICore us',
        'eff', 'effAIC', 'build'))
    results, failures = {}, 0
    for spec in specs:
        name = os.path.relpath(spec, os.path.join(SRC, 'specs'))[:-5]
        base = os.path.basename(name)
        bind = dict(SIZES.get(base, {}))
        if a.quick:
            bind = {k: max(1, v // 4) for k, v in bind.items()}
        size = ','.join('%s=%d' % kv for kv in bind.items()) or 'static'
        bundle = os.path.join(work, base + '.bundle')
        rc, msg = run([ptoc, spec, '-o', bundle])
        if rc:
            print('%-26s %-13s does not compile: %s' % (name, size, msg.strip().splitlines()[0][-110:]))
            continue
        rc, ir = run([ptoc, spec, '--emit', 'ir'])
        if re.search(r'^\s+reads \S+ = ', ir, re.M):
            # Its trip counts and offsets are run-time values (specs/README.md): the work depends on the data.
            print('%-26s %-13s skipped: its work depends on run-time values' % (name, size))
            continue
        target = re.search(r'^target (\S+)', ir, re.M).group(1)
        w = Work(ir, bind)
        p = plats[target]
        terms = {'cube': w.cube_flops / p['peak_cube_flops'], 'vector': w.vec_bytes / p['vec_bytes_per_s'],
                 'HBM': w.hbm_bytes / p['hbm_bytes_per_s']}
        lim = max(terms, key=terms.get)
        bound_us = terms[lim] * 1e6
        outdir = os.path.join(work, base)
        cmd = [ptorun, bundle, '--timing-only', '--runtime-debug-mode', '1', '--dump-device-perf', '--output-dir', outdir]
        for k, v in bind.items():
            cmd += ['--dim', '%s=%d' % (k, v)]
        rc, out = run(cmd)
        m = re.search(r'operator end-to-end ([0-9.]+) us', out)
        m2 = re.search(r'AICore End-to-End Time: ([0-9.]+)', out)
        if rc or not m or not m2:
            print('%-26s %-13s ptorun failed: %s' % (name, size, out.strip()[-200:]))
            failures += 1
            continue
        e2e, aic = float(m.group(1)), float(m2.group(1))
        # Control AICPU DEV_TASK_BUILD time (ptorun analyze): how much of the run is device-task building.
        _, table = run([ptorun, 'analyze', outdir])
        b = re.search(r'^\| AICPU-CTRL-\d+\s*\|\s*([0-9.]+)', table, re.M)
        build = float(b.group(1)) if b else float('nan')
        results[base] = dict(w=w, e2e=e2e, aic=aic, plat=p, target=target, build=build)
        print('%-26s %-13s %9.2f %9.1f %9.1f %7s %10.1f %10.1f %10.1f %5.0f%% %5.0f%% %5.0f%%' % (
            name, size, w.cube_flops / 1e9, w.vec_bytes / 1e6, w.hbm_bytes / 1e6, lim, bound_us, e2e, aic,
            100 * bound_us / e2e, 100 * bound_us / aic, 100 * build / e2e))
    print('\nbound: the roof that limits (cube FLOPs, vector repeats or HBM bytes); eff = bound / simulated '
          'operator time; effAIC = bound / AICore end-to-end (kernels only, no AICPU start-up); build = the Control '
          'AICPU\'s DEV_TASK_BUILD time (ptorun analyze) / operator time: near 100% the run is bound by '
          'device-task building, not by the cores.')
    # Published figures the model was never tuned on (shared/reference/ascend-platform.md §2.1).
    print('\nAgainst published Ascend figures:')
    g = results.get('gemm_6144')
    if g:
        tf, tfa = g['w'].cube_flops / g['e2e'] / 1e6, g['w'].cube_flops / g['aic'] / 1e6
        print('  gemm_6144 fp16 on %s: %.0f TFLOPS end to end, %.0f TFLOPS over the kernels; derived peak %.0f; '
              'public claim "910B ~320 TFLOPS FP16" [W:boardor.com] (ascend-platform.md §2.1): %.0f%% / %.0f%% of it'
              % (g['target'], tf, tfa, g['plat']['peak_cube_flops'] / 1e12, 100 * tf / 320, 100 * tfa / 320))
    for n in ('rmsnorm', 'softmax'):
        r = results.get(n)
        if r:
            bw, bwa = r['w'].hbm_bytes / r['e2e'] / 1e6, r['w'].hbm_bytes / r['aic'] / 1e6
            print('  %s (%s): %.2f TB/s end to end, %.2f TB/s over the kernels, against the published 1.6 TB/s per '
                  'die (910C 3.2 TB/s per two dies [W:techpowerup.com/335749]); DEV_TASK_BUILD is %.0f%% of the run, '
                  'so device-task building, not HBM, limits it. The model\'s HBM pool is this published figure '
                  '(platform.cpp), so a bandwidth row cannot validate the model, only show where it stands.'
                  % (n, r['target'], bw, bwa, 100 * r['build'] / r['e2e']))
    return 1 if failures or not results else 0


if __name__ == '__main__':
    sys.exit(main())
