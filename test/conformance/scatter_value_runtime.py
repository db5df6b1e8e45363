"""scatter_update into a value through the CLI (issue 13): `y = scatter_update(v, -2, index, src)` with v computed
in a dynamic loop (one workspace y_scatter shared by the iterations):
- ptorun gives NumPy's result in every mode, the same bytes with runtime_debug_mode 3 (the dependency check
  between tasks: the copy, the rows and the reads of y are ordered) and 4 (GM bounds checks), and ptoc eval agrees;
- a slot outside v stops ptorun (mode 0: the located run-time-value error naming y_scatter; mode 4: the GM
  bounds check naming the task) and ptoc eval, with exit 1.

    scatter_value_runtime.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

SPEC = """ptoc: 1
name: sv_runtime
dims:
  B: {dynamic: true, max: 16}
  D: 16
inputs:
  base: {dtype: fp32, shape: [B * 8, D]}
  rows: {dtype: fp32, shape: [B * 2, D]}
  slots: {dtype: int32, shape: [B, 2], values: [0, 7]}
outputs:
  y: {dtype: fp32, shape: [B * 8, D]}
body:
  - loop: {var: b, count: B}
    body:
      - vec_tile: [4, 16]
      - "v = view(base, [8, D], [b * 8, 0]) + 1"
      - "w = scatter_update(v, -2, view(slots, [1, 2], [b, 0]), view(rows, [2, D], [b * 2, 0]))"
      - "y[b * 8:, 0:] = w * 2"
"""


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-scatter-value-")
    spec = os.path.join(work, "sv_runtime.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    bundle = os.path.join(work, "sv.bundle")
    rc, _, err = run([ptoc, spec, "-o", bundle])
    expect(rc == 0, "compile", err)
    rng = np.random.default_rng(16)
    B = 3
    base = rng.standard_normal((B * 8, 16)).astype(np.float32)
    rows = rng.standard_normal((B * 2, 16)).astype(np.float32)
    good = np.array([[5, 0], [7, 2], [1, 6]], np.int32)
    want = base + np.float32(1)
    for b in range(B):
        for j in range(2):
            want[b * 8 + good[b, j]] = rows[b * 2 + j]
    want = want * np.float32(2)
    paths = {}
    for name, arr in (("base", base), ("rows", rows), ("good", good), ("bad", np.array([[5, 0], [8, 2], [1, 6]], np.int32))):
        paths[name] = os.path.join(work, name + ".npy")
        np.save(paths[name], arr)
    base_args = ["--input", "base=" + paths["base"], "--input", "rows=" + paths["rows"]]
    outs = []
    for extra in ([], ["--runtime-debug-mode", "3"], ["--runtime-debug-mode", "4"], ["--check"]):
        out = os.path.join(work, f"y{len(outs)}.npy")
        rc, _, err = run([ptorun, bundle, "-q"] + base_args + ["--input", "slots=" + paths["good"], "--output",
                                                               "y=" + out] + extra)
        expect(rc == 0, "ptorun " + " ".join(extra), err)
        outs.append(np.load(out))
    expect(np.array_equal(outs[0], want), "ptorun: NumPy's result (v + 1 with the rows at the slots, doubled)")
    expect(all(o.tobytes() == outs[0].tobytes() for o in outs), "the same bytes in every mode")
    ev = os.path.join(work, "y_eval.npy")
    rc, _, err = run([ptoc, "eval", spec] + base_args + ["--input", "slots=" + paths["good"], "--output", "y=" + ev])
    expect(rc == 0 and np.array_equal(np.load(ev), want), "ptoc eval: the same result", err)
    args = base_args + ["--input", "slots=" + paths["bad"]]
    rc, _, err = run([ptorun, bundle, "-q"] + args)
    expect(rc == 1 and "sv_runtime.yaml:17:" in err and "'w_scatter': axis 0 offset 8" in err and
           "but the bound is 8" in err and "run-time values read from 'slots'" in err, "ptorun: slot 8 of an 8-row v is exit 1, located", err)
    rc, _, err = run([ptorun, bundle, "-q", "--runtime-debug-mode", "4"] + args)
    expect(rc == 1 and "GM bounds check failed" in err and "writes tensor 'w_scatter' at offset [8, 0]" in err and
           "axis 0 spans [8, 9) but the bound is 8" in err and "sv_runtime.yaml:17:" in err,
           "runtime_debug_mode 4: exit 1, naming the workspace, the axis, the offset and the bound", err)
    # A negative slot: the same checks below the axis.
    paths["neg"] = os.path.join(work, "neg.npy")
    np.save(paths["neg"], np.array([[5, 0], [7, 2], [-1, 6]], np.int32))
    neg = base_args + ["--input", "slots=" + paths["neg"]]
    rc, _, err = run([ptorun, bundle, "-q"] + neg)
    expect(rc == 1 and "sv_runtime.yaml:17:" in err and "'w_scatter': axis 0 offset -1" in err and
           "root function 'loop_b' at b=2" in err, "ptorun: slot -1 is exit 1, located, at b=2", err)
    rc, _, err = run([ptorun, bundle, "-q", "--runtime-debug-mode", "4"] + neg)
    expect(rc == 1 and "writes tensor 'w_scatter' at offset [-1, 0]" in err and
           "axis 0 spans [-1, 0) but the bound is 8" in err, "runtime_debug_mode 4: slot -1, exit 1", err)
    rc, _, err = run([ptoc, "eval", spec] + args)
    expect(rc == 1 and "sv_runtime.yaml:17:" in err and "w_scatter" in err, "ptoc eval: slot 8, located", err)


if __name__ == "__main__":
    main()
