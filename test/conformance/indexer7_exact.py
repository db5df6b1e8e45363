#!/usr/bin/env python3
"""Bit-exact checks of indexer7's two features, where the contract's tolerance would hide a wrong rule:

  indexer7_exact.py PTOC PTORUN

1. int8 x int8 matmul to fp16 with scale= (PyPTO's fixpipe dequant): `ptoc eval` and `ptorun` give exactly
   fp16(fp32(acc) * scale19) for a scale that 10 mantissa bits do not hold (0.37: the truncated scale
   changes about half of the fp16 results by one ulp, inside the fp16 tolerance), with and without RELU;
2. topk over a split sorted axis: values and int32 indices exactly NumPy's stable order (ties by the lower
   index across tiles) on inputs of few distinct values, under three vec_tiles (whole, 64, 48 with a tail).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_indexer7 import dequant_mm  # noqa: E402

PTOC, PTORUN = sys.argv[1], sys.argv[2]
failures = []

SPEC = """ptoc: 1
name: indexer7_exact
inputs:
  a: {{dtype: int8, shape: [40, 96]}}
  b: {{dtype: int8, shape: [72, 96]}}
  x: {{dtype: int32, shape: [3, 200]}}
outputs:
  y: {{dtype: fp16, shape: [40, 72]}}
  r: {{dtype: fp16, shape: [40, 72]}}
  v: {{dtype: int32, shape: [3, 40]}}
  i: {{dtype: int32, shape: [3, 40]}}
body:
  - cube_tile: {{m: [16, 32], k: [32, 64], n: [32, 64]}}
  - "y[:, :] = matmul(a, b, fp16, b_trans=true, scale=0.37)"
  - "r[:, :] = matmul(a, b, fp16, b_trans=true, scale=1 / 2048.0, relu_type=RELU)"
  - vec_tile: [2, {tile}]
  - "tv, ti = topk(x, 40)"
  - "v[:, :] = tv"
  - "i[:, :] = ti"
"""


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")


def main():
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (40, 96)).astype(np.int8)
    b = rng.integers(-128, 128, (72, 96)).astype(np.int8)
    x = rng.integers(-3, 4, (3, 200)).astype(np.int32)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :40]
    want = {"y": dequant_mm(a, b.T, 0.37, False).astype(np.float16),
            "r": dequant_mm(a, b.T, 1 / 2048.0, True).astype(np.float16),
            "v": np.take_along_axis(x, order, -1).astype(np.int32), "i": order.astype(np.int32)}
    with tempfile.TemporaryDirectory(prefix="indexer7-") as work:
        ins = []
        for n, arr in (("a", a), ("b", b), ("x", x)):
            np.save(os.path.join(work, n + ".npy"), arr)
            ins += ["--input", f"{n}={os.path.join(work, n + '.npy')}"]
        for tile in (200, 64, 48):
            spec = os.path.join(work, f"s{tile}.yaml")
            with open(spec, "w") as f:
                f.write(SPEC.format(tile=tile))
            outs = lambda who: sum((["--output", f"{n}={os.path.join(work, f'{who}{tile}_{n}.npy')}"] for n in want), [])
            run([PTOC, "eval", spec] + ins + outs("eval"))
            bundle = os.path.join(work, f"s{tile}.bundle")
            run([PTOC, spec, "-o", bundle])
            run([PTORUN, bundle, "-q"] + ins + outs("run"))
            for who in ("eval", "run"):
                for n, w in want.items():
                    got = np.load(os.path.join(work, f"{who}{tile}_{n}.npy"))
                    label = f"tile {tile}: {'ptoc eval' if who == 'eval' else 'ptorun'} {n}"
                    if got.dtype != w.dtype or got.shape != w.shape or got.tobytes() != w.tobytes():
                        diff = int(np.sum(got != w)) if got.shape == w.shape else -1
                        failures.append(f"{label} differs from NumPy ({diff} elements)")
                    else:
                        print(f"ok   {label} bit-exact ({w.size} elements)")
    for f in failures:
        print("FAIL", f)
    print("all ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
