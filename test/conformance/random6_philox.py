#!/usr/bin/env python3
"""PyPTO's uniform / normal in ptoc, bit for bit against the NumPy Philox 4x32-10 of philox_ref.py.

  random6_philox.py PTOC PTORUN

For fp32 / fp16 / bf16 and both ops: `ptoc eval`, the bundle's leaf programs (`ptorun`) and its compiled
CCE twin (`ptoc --host-twin=cce`, `ptorun --twin=cce`) each give exactly the reference's bytes. The same
uniform under three vec_tiles (whole, 8 x 16 with tails, 5 x 12) and a rank-3 one under three tiles give
identical output bytes (a value depends on key, counter and its flat index only). Statistics, loosely:
4096 uniforms have mean 1/2 and variance 1/12, 4096 normals mean 0 and variance 1.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import philox_ref as P  # noqa: E402
from numerics import rnd  # noqa: E402

NPY = {"fp32": np.float32, "fp16": np.float16, "bf16": np.float32}
failures = []


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def spec_text(op, shape, tile, key, counter, dtype):
    ax = ", ".join(":" for _ in shape)
    return (f"ptoc: 1\nname: r6_{op}\noutputs:\n  y: {{dtype: {dtype}, shape: {list(shape)}}}\nbody:\n"
            f"  - vec_tile: {list(tile)}\n"
            f"  - \"y[{ax}] = {op}({list(shape)}, [{key}], [{counter[0]}, {counter[1]}], [1], {dtype})\"\n")


def outputs(work, tag, text, twin=True):
    """{who: bytes of y} from ptoc eval, ptorun (leaf programs) and ptorun --twin=cce."""
    spec = os.path.join(work, tag + ".yaml")
    with open(spec, "w") as f:
        f.write(text)
    got = {}
    ev = os.path.join(work, tag + "_eval.npy")
    run([PTOC, "eval", spec, "--output", f"y={ev}"])
    got["ptoc eval"] = np.load(ev)
    bundle = os.path.join(work, tag + ".bundle")
    run([PTOC, spec, "-o", bundle] + (["--host-twin=cce"] if twin else []))
    lf = os.path.join(work, tag + "_leaf.npy")
    run([PTORUN, bundle, "--output", f"y={lf}", "-q"])
    got["ptorun"] = np.load(lf)
    if twin:
        tw = os.path.join(work, tag + "_cce.npy")
        run([PTORUN, bundle, "--twin=cce", "--output", f"y={tw}", "-q"])
        got["ptorun --twin=cce"] = np.load(tw)
    return got


def expect_bits(label, got, want, dtype):
    want = np.asarray(want, np.float64).astype(NPY[dtype])
    for who, arr in got.items():
        if arr.dtype != want.dtype or arr.shape != want.shape or arr.tobytes() != want.tobytes():
            bad = np.flatnonzero(arr.reshape(-1).view(np.uint8 if arr.shape != want.shape else arr.dtype)
                                 != want.reshape(-1)) if arr.shape == want.shape else []
            at = int(bad[0]) if len(bad) else -1
            failures.append(f"{label}: {who} differs from NumPy's Philox"
                            + (f" first at flat index {at}: {arr.reshape(-1)[at]!r} vs {want.reshape(-1)[at]!r}"
                               if at >= 0 else f" ({arr.dtype}{arr.shape} vs {want.dtype}{want.shape})"))
        else:
            print(f"ok   {label}: {who} bit-exact ({arr.size} elements)")


def main():
    with tempfile.TemporaryDirectory(prefix="random6-") as work:
        key, ctr = (1 << 33) + 77, (5, (1 << 35) + 3)
        for dtype in ("fp32", "fp16", "bf16"):
            got = outputs(work, f"u_{dtype}", spec_text("uniform", [12, 40], [8, 16], key, ctr, dtype))
            expect_bits(f"uniform {dtype} [12, 40] tile [8, 16]", got, P.uniform([12, 40], key, ctr[1], dtype), dtype)
            got = outputs(work, f"n_{dtype}", spec_text("normal", [6, 20], [6, 20], key, ctr, dtype))
            expect_bits(f"normal {dtype} [6, 20]", got, rnd(P.normal([6, 20], key, ctr[1]), dtype), dtype)

        # Tiling never changes the numbers: identical bytes under three tiles (leaf programs).
        for shape, tiles in (([24, 40], ([24, 40], [8, 16], [5, 12])), ([3, 10, 8], ([3, 10, 8], [1, 4, 8], [2, 3, 4]))):
            bytes_ = []
            for t in tiles:
                tag = "tile_" + "x".join(map(str, shape)) + "_" + "x".join(map(str, t))
                g = outputs(work, tag, spec_text("uniform", shape, t, 1234, (0, 1), "fp32"), twin=False)
                bytes_.append(g["ptorun"].tobytes())
            if len(set(bytes_)) != 1:
                failures.append(f"uniform {shape}: tiles {tiles} give different bytes")
            else:
                print(f"ok   uniform {shape}: tiles {list(tiles)} give identical bytes")
            expect_bits(f"uniform {shape} (tiled)", {"ptorun": np.frombuffer(bytes_[0], np.float32).reshape(shape)},
                        P.uniform(shape, 1234, 1, "fp32"), "fp32")

        # Statistics, loosely (4 standard errors).
        u = outputs(work, "stat_u", spec_text("uniform", [32, 128], [8, 128], 2024, (0, 11), "fp32"), twin=False)["ptorun"]
        n = outputs(work, "stat_n", spec_text("normal", [16, 256], [16, 256], 2024, (0, 11), "fp32"), twin=False)["ptorun"]
        for label, got, want, tol in (("uniform mean", u.mean(), 0.5, 4 * 0.2887 / 64),
                                      ("uniform var", u.var(), 1 / 12, 4 * 0.0745 / 64),
                                      ("normal mean", n.mean(), 0.0, 4 / 64),
                                      ("normal var", n.var(), 1.0, 4 * 1.414 / 64)):
            ok = abs(float(got) - want) <= tol
            print(f"{'ok  ' if ok else 'FAIL'} {label} {float(got):.5f} (expected {want:.5f} +- {tol:.5f})")
            if not ok:
                failures.append(f"{label} {float(got):.5f}, expected {want:.5f} +- {tol:.5f}")
        if not (u.min() >= 0 and u.max() < 1):
            failures.append(f"uniform outside [0, 1): [{u.min()}, {u.max()}]")
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        return 1
    print("random6_philox: all passed")
    return 0


if __name__ == "__main__":
    PTOC, PTORUN = sys.argv[1], sys.argv[2]
    sys.exit(main())
