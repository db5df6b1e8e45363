#!/usr/bin/env python3
"""Numerics time of the leaf-program executor next to the compiled CCE twin, and ptoc's wall time
without and with the twin build, on the library specs (small-shape copies as the spec tests use).

  twin_bench.py PTOC PTORUN [--runs 5] [--quick]

Per spec: `ptoc SPEC -o B` (default: leaf programs, no compiler) and `ptoc SPEC -o B --host-twin=cce`
wall time (warm twin cache after the first), then `ptorun B -j1` with the default executor and with
--twin=cce, the host seconds of its run line, median of --runs. --quick: two specs, one run (CI smoke:
checks the table is produced, not the ratio).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("PTOC_SOURCE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "specs"))
sys.path.insert(0, os.path.join(ROOT, "test", "twin"))

import yaml  # noqa: E402
from twin_identity import plan, dynamic_dims  # noqa: E402

LIB = ["softmax", "rmsnorm", "layernorm", "ffn_swiglu", "matmul", "attention", "decode_attention",
       "skinny_matmul", "loop_unroll"]
RAN = re.compile(r"host ([\d.]+) s")


def wall(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    return time.perf_counter() - t, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptoc")
    ap.add_argument("ptorun")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    specs, runs = (LIB[:2], 1) if a.quick else (LIB, a.runs)
    work = tempfile.mkdtemp(prefix="ptoc-twinbench-")
    print(f"{'spec':18} {'ptoc s':>8} {'ptoc+cce s':>10} {'leaf s':>9} {'cce s':>9} {'leaf/cce':>8}   (median of {runs})")
    ratios = []
    for name in specs:
        spec = os.path.join(ROOT, "specs", name + ".yaml")
        doc, changed, dims, _, _ = plan(spec)
        if changed:
            spec = os.path.join(work, name + ".yaml")
            with open(spec, "w") as f:
                yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=1000)
        b = os.path.join(work, name + ".bundle")
        t_cce, _ = wall([a.ptoc, spec, "-o", b, "--host-twin=cce"])
        t_leaf = statistics.median(wall([a.ptoc, spec, "-o", b + ".leaf"])[0] for _ in range(runs))
        args = ["-j", "1", "--seed", "3"] + sum((["--dim", f"{n}={dims.get(n, 37)}"] for n in dynamic_dims(doc)), [])
        host = {}
        for twin in ("leaf", "cce"):
            xs = []
            for _ in range(runs):
                _, out = wall([a.ptorun, b, *args, f"--twin={twin}"])
                m = RAN.search(out)
                if not m:
                    sys.exit(f"FAIL: no host time in ptorun's output:\n{out}")
                xs.append(float(m.group(1)))
            host[twin] = statistics.median(xs)
        ratio = host["leaf"] / host["cce"] if host["cce"] > 0 else float("nan")
        ratios.append(ratio)
        print(f"{name:18} {t_leaf:8.3f} {t_cce:10.3f} {host['leaf']:9.4f} {host['cce']:9.4f} {ratio:8.2f}")
    print(f"median leaf/cce numerics ratio: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
