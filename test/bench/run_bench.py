#!/usr/bin/env python3
"""The issue-5 benchmark: every speed figure of ptoc and ptorun next to its target, in one table.

    test/bench/run_bench.py [--build-dir build] [--quick] [--runs N]

Builds nothing: it runs the binaries of an existing build dir (ptoc, ptorun, compile_bench,
kernels_bench, sim_bench). Rates divide by CPU seconds (getrusage of the child process), not wall time,
because the development machine is shared; the wall seconds are printed beside them. Each compile figure
is the median of --runs runs (default 3). --quick uses small shapes so that the whole run takes well under
a minute: it checks that every measurement runs and prints its row (CI smoke test), not the speeds.
docs/PERFORMANCE.md explains each row.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Bench:
    def __init__(self, build, quick, runs, tmp):
        self.build, self.quick, self.runs, self.tmp = build, quick, runs, tmp
        self.rows = []  # (figure, value, unit, target, ratio or None, note)
        self.failed = False
        self.env = dict(os.environ)
        self.env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # a cold host-twin cache for this run
        self.env["TILE_FWK_OUTPUT_DIR"] = os.path.join(tmp, "output")

    def exe(self, rel):
        p = os.path.join(self.build, rel)
        if not os.path.exists(p):
            sys.exit(f"run_bench: {p} is missing: build it first (ninja -C {self.build} {rel})")
        return p

    def run(self, argv, env=None):
        """Runs argv; returns (stdout, stderr, cpu seconds, wall seconds, peak RSS KiB) of that child."""
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or self.env, text=True)
        out, err = p.communicate()
        wall = time.monotonic() - t0
        # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN only in aggregate, so the
        # commands below that need their own CPU time and RSS go through time_child instead.
        if p.returncode != 0:
            sys.stderr.write(f"run_bench: {' '.join(argv)} failed ({p.returncode}):\n{err}{out}")
            raise SystemExit(1)
        return out, err, wall

    def time_child(self, argv):
        """Runs argv with its own rusage: (stdout, stderr, cpu s, wall s, peak RSS KiB)."""
        t0 = time.monotonic()
        with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryFile("w+") as fe:
            p = subprocess.Popen(argv, stdout=fo, stderr=fe, env=self.env)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - t0
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        if p.returncode != 0:
            sys.stderr.write(f"run_bench: {' '.join(argv)} failed ({p.returncode}):\n{err}{out}")
            raise SystemExit(1)
        return out, err, ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss

    def row(self, figure, value, unit, target, ratio, note=""):
        self.rows.append((figure, value, unit, target, ratio, note))


def scaled_spec(src, dst, scale):
    """Writes `src` grown by its dims: GEMM grows M; the decode spec grows NL (and QH, KL with it)."""
    text = open(src).read()

    def grow(name, t):
        m = re.search(r"(\b%s: )(\d+)" % name, t)
        if not m:
            return t
        return t[: m.start(2)] + str(int(m.group(2)) * scale) + t[m.end(2):]

    if "NL:" in text:
        for n in ("NL", "QH", "KL"):
            text = grow(n, text)
    else:
        text = grow("M", text)
    open(dst, "w").write(text)
    return dst


def shrink_gemm(src, dst, n):
    text = re.sub(r"M: \d+, K: \d+, N: \d+", f"M: {n}, K: {n}, N: {n}", open(src).read())
    open(dst, "w").write(text)
    return dst


def shrink_decode(src, dst, nl):
    text = open(src).read()
    text = re.sub(r"\bNL: \d+", f"NL: {nl}", text)
    text = re.sub(r"\bQH: \d+", f"QH: {nl * 32}", text)
    text = re.sub(r"\bKL: \d+", f"KL: {nl * 512}", text)
    open(dst, "w").write(text)
    return dst


def compile_figures(b, specs):
    cb = b.exe("test/bench/compile_bench")
    results = {}
    for label, spec in specs:
        out, _, _ = b.run([cb, spec, "--runs", str(b.runs)])
        r = json.loads(out.strip().splitlines()[-1])
        results[label] = r
        rate = r["tile_ops_per_cpu_s"]
        b.row(f"ptoc {label}: {r['tile_ops']} tile ops, {r['root_templates']} roots",
              rate / 1e6, "M tile ops/CPU s", ">= 1", rate / 1e6,
              f"cpu {r['cpu_s']:.2f} s, wall {r['wall_s']:.2f} s")
    return results


def scaling(b, label, spec, scales):
    cb = b.exe("test/bench/compile_bench")
    pts = []
    for s in scales:
        path = scaled_spec(spec, os.path.join(b.tmp, f"scale_{label}_{s}.yaml"), s)
        out, _, _ = b.run([cb, path, "--runs", str(b.runs)])
        r = json.loads(out.strip().splitlines()[-1])
        pts.append((s, r["tile_ops"], r["cpu_s"]))
    n1, t1 = pts[0][1], pts[0][2]
    worst = 0.0
    for s, n, t in pts:
        # Measured growth over the n log n growth: <= 1 means no worse than n log n.
        nlogn = (n * math.log(n)) / (n1 * math.log(n1))
        g = (t / t1) / nlogn if t1 > 0 else 0.0
        if s > 1:
            worst = max(worst, g)
        b.row(f"  scaling {label} {s}x: {n} tile ops", t, "CPU s", "n log n",
              None, f"time x{t / t1:.2f}, n log n x{nlogn:.2f}, ratio {g:.2f}")
    # 25 % allowance for timer noise on a shared machine.
    b.row(f"ptoc {label} scaling 1x..{scales[-1]}x: worst time/(n log n) growth", worst, "x", "<= 1.25",
          1.25 / worst if worst > 0 else None)


def knob_recompile(b, spec):
    """Compiles cold, then with only a runtime knob changed: the second compile must run no C++ compiler."""
    log = os.path.join(b.tmp, "cxx.log")
    wrapper = os.path.join(b.tmp, "cxx-wrapper")
    real = shutil.which(os.environ.get("CXX", "").split()[0] if os.environ.get("CXX") else "g++") or "g++"
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" >> '{log}'\nexec '{real}' \"$@\"\n")
    os.chmod(wrapper, 0o755)
    env = dict(b.env)
    env["CXX"] = wrapper
    ptoc = b.exe("cli/ptoc")
    bundle = os.path.join(b.tmp, "knob.bundle")

    def compiles():
        return sum(1 for _ in open(log)) if os.path.exists(log) else 0

    # The compiled twin is a verification mode: only --host-twin=cce runs the C++ compiler.
    _, err1, w1 = b.run([ptoc, spec, "-o", bundle, "--time-passes", "--host-twin=cce"], env=env)
    cold = compiles()
    _, err2, w2 = b.run([ptoc, spec, "-o", bundle, "--time-passes", "--host-twin=cce", "--set", "runtime.stitch_function_max_num=7",
                         "--set", "runtime.device_sched_mode=3"], env=env)
    warm = compiles() - cold
    m1 = re.search(r"host_twin_build\s+([\d.]+)", err1)
    m2 = re.search(r"host_twin_build\s+([\d.]+)", err2)
    b.row(f"ptoc recompile, runtime knobs only: C++ compiler runs", warm, "runs", "0",
          None if warm else 1.0,
          f"cold compile ran it {cold}x; host_twin_build {m1.group(1) if m1 else '?'} -> "
          f"{m2.group(1) if m2 else '?'} ms wall")
    if warm != 0 or cold == 0:
        b.failed = True


SIM_LINE = re.compile(r"^simulator: (\d+) tasks, (\d+) model events in ([\d.]+) host CPU s: ([\d.]+) M tasks/CPU s, "
                      r"([\d.]+) M events/CPU s; peak RSS ([\d.]+) MiB$", re.M)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def ptorun_stream(b, iterations):
    """ptorun --timing-only on the stream spec, b.runs times: medians of ptorun's own "simulator:" line
    (tasks and model events per CPU second of the run, peak RSS as VmHWM). wait4's ru_maxrss is printed
    beside it: it also counts this Python process's memory at fork time, which exec keeps."""
    ptoc, ptorun = b.exe("cli/ptoc"), b.exe("cli/ptorun")
    bundle = os.path.join(b.tmp, "stream.bundle")
    b.run([ptoc, os.path.join(HERE, "specs", "stream_tasks.yaml"), "-o", bundle])
    runs = []  # (tasks/CPU s, events/CPU s, run CPU s, process CPU s, wall s, VmHWM MiB, events, maxrss KiB)
    tasks = 0
    for _ in range(b.runs):
        out, _, cpu, wall, rss = b.time_child([ptorun, bundle, "--timing-only", "--dim", f"R={iterations}"])
        m = SIM_LINE.search(out)
        if not m:
            sys.exit(f"run_bench: ptorun printed no 'simulator:' throughput line:\n{out}")
        tasks, events, run_cpu = int(m.group(1)), int(m.group(2)), float(m.group(3))
        if tasks != 4 * iterations:
            sys.exit(f"run_bench: ptorun simulated {tasks} tasks, expected {4 * iterations}:\n{out}")
        runs.append((float(m.group(4)), float(m.group(5)), run_cpu, cpu, wall, float(m.group(6)), events, rss))
    trate, erate = median([r[0] for r in runs]), median([r[1] for r in runs])
    run_cpu, cpu, wall = median([r[2] for r in runs]), median([r[3] for r in runs]), median([r[4] for r in runs])
    rss, maxrss = median([r[5] for r in runs]), median([r[7] for r in runs]) / 1024.0
    events = runs[0][6]
    n = f"median of {len(runs)}" if len(runs) > 1 else "1 run"
    b.row(f"ptorun timing-only: {tasks} tasks (stream_tasks)", trate, "M tasks/CPU s", ">= 1", trate,
          f"{n}; run cpu {run_cpu:.2f} s, process cpu {cpu:.2f} s, wall {wall:.2f} s")
    b.row(f"ptorun timing-only: {events} model events", erate, "M events/CPU s", ">= 1", erate,
          f"{n}; {events / tasks:.2f} events per task (Trace::events)")
    b.row(f"ptorun timing-only: peak RSS of the {tasks}-task run", rss, "MiB", "< 1024 (10M tasks)",
          1024.0 / rss if rss else None,
          f"{n}; VmHWM; wait4 maxrss {maxrss:.1f} MiB" + ("" if tasks >= 10_000_000 else "; quick: fewer tasks"))
    sim = b.exe("test/bench/sim_bench")
    out, _, _ = b.run([sim] + (["--quick"] if b.quick else []))
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[-7].isdigit():
            ev = float(cols[-3])
            b.row("machine model alone (sim_bench): task events", ev / 1e6, "M events/CPU s", ">= 1", ev / 1e6,
                  " ".join(cols[:-7]) + f", RSS {cols[-1]} MiB")


def kernels(b):
    kb = b.exe("test/bench/kernels_bench")
    out, _, _ = b.run([kb] + (["--quick"] if b.quick else []))
    pat = re.compile(r"^(.*?)\s+([\d.]+)\s+([\d.]+)\s+(GFLOP/s|GB/s)\s+(\d+)%.*?(>=\d+%|-)\s+(.*)$")
    for line in out.splitlines():
        m = pat.match(line)
        if not m:
            continue
        name, ours, ref, unit, pct, target, vs = m.groups()
        if target == "-":
            continue
        tgt = float(target[2:-1])
        b.row(f"host twin {name.strip()}", float(pct), f"% of {vs.strip()}", f">= {tgt:g}",
              float(pct) / tgt, f"{ours} vs {ref} {unit}")


def parallel_numerics(b, spec, dims):
    """Numerics with -j 1 and -j 2: the swimlanes (simulated schedule) must be byte-identical."""
    ptoc, ptorun = b.exe("cli/ptoc"), b.exe("cli/ptorun")
    bundle = os.path.join(b.tmp, "par.bundle")
    b.run([ptoc, spec, "-o", bundle])
    lanes, cpus, walls = [], [], []
    for j in (1, 2):
        od = os.path.join(b.tmp, f"par_out_j{j}")
        argv = [ptorun, bundle, "-j", str(j), "--runtime-debug-mode", "1", "--output-dir", od, "--check"]
        for d in dims:
            argv += ["--dim", d]
        _, _, cpu, wall, _ = b.time_child(argv)
        runs = sorted(os.listdir(od))
        lane = os.path.join(od, runs[-1], "merged_swimlane.json")
        lanes.append(open(lane, "rb").read())
        cpus.append(cpu)
        walls.append(wall)
    same = lanes[0] == lanes[1]
    if not same:
        b.failed = True
    b.row("ptorun numerics -j 1 vs -j 2: identical simulated swimlane", 1.0 if same else 0.0, "(1 = yes)", "1",
          1.0 if same else 0.0,
          f"{os.path.basename(spec)}: wall {walls[0]:.2f} s -> {walls[1]:.2f} s, cpu {cpus[0]:.2f} -> {cpus[1]:.2f} s")


def print_table(b):
    w = max(len(r[0]) for r in b.rows)
    print(f"\n{'figure':<{w}}  {'value':>10}  {'unit':<18} {'target':<18} {'ratio':>7}  notes")
    for fig, val, unit, tgt, ratio, note in b.rows:
        r = "" if ratio is None else f"{ratio:6.2f}{'' if ratio >= 1 else '!'}"
        v = f"{val:10.3f}" if isinstance(val, float) else f"{val:>10}"
        print(f"{fig:<{w}}  {v}  {unit:<18} {tgt:<18} {r:>7}  {note}")
    print("\nratio = value against target (>= 1 meets it; '!' marks a miss). Rates per CPU second of the process.")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--quick", action="store_true", help="small shapes, < 1 minute: checks the benchmark runs")
    ap.add_argument("--runs", type=int, default=0, help="runs per compile figure (median); default 3, quick 1")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    a = ap.parse_args()
    runs = a.runs or (1 if a.quick else 3)
    tmp = tempfile.mkdtemp(prefix="ptoc-bench-")
    b = Bench(os.path.abspath(a.build_dir), a.quick, runs, tmp)
    t0 = time.monotonic()
    try:
        gemm = os.path.join(ROOT, "specs", "gemm_6144.yaml")
        dec = os.path.join(HERE, "specs", "decode_attention_gears.yaml")
        if a.quick:
            gemm = shrink_gemm(gemm, os.path.join(tmp, "gemm_1536.yaml"), 1536)
            dec = shrink_decode(dec, os.path.join(tmp, "decode_nl10.yaml"), 10)
        compile_figures(b, [("gemm " + ("1536^3 (quick)" if a.quick else "6144^3"), gemm),
                            ("decode attention " + ("NL=10 (quick)" if a.quick else "1000 templates"), dec)])
        scales = [1, 2] if a.quick else [1, 2, 4, 8]
        scaling(b, "gemm", gemm, scales)
        scaling(b, "decode", dec, scales)
        knob_recompile(b, os.path.join(ROOT, "specs", "rmsnorm.yaml"))
        ptorun_stream(b, 25_000 if a.quick else 2_500_000)
        kernels(b)
        parallel_numerics(b, os.path.join(ROOT, "specs", "decode_attention.yaml"), ["B=4" if a.quick else "B=32"])
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print_table(b)
    print(f"total {time.monotonic() - t0:.1f} s wall{' (quick)' if a.quick else ''}; build dir {b.build}")
    # Speeds are reported, not asserted; a broken invariant (C++ compile on a knob change, a schedule that
    # changes with -j) fails the run.
    return 1 if b.failed else 0


if __name__ == "__main__":
    sys.exit(main())
