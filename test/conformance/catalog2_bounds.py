"""index_select along dim 1 (catalog2): an index read at run time past its tensor stops ptorun (every mode,
and runtime_debug_mode 4's GM bounds check names the leaf task) and ptoc eval with exit 1 and a located
message before any element is read; in range, the numbers equal NumPy's.

    catalog2_bounds.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-catalog2-")
    spec = os.path.join(work, "isel.yaml")
    with open(spec, "w") as f:
        f.write("ptoc: 1\nname: isel\ndims:\n  V: 10\n  N: 3\n  D: 40\ninputs:\n"
                "  table: {dtype: fp16, shape: [V, D]}\n  sel: {dtype: int32, shape: [N], values: [0, 39]}\n"
                "outputs:\n  y: {dtype: fp16, shape: [V, N]}\nbody:\n  - vec_tile: [16, 64]\n"
                "  - \"y[:, :] = index_select(table, 1, sel)\"\n")
    bundle = os.path.join(work, "isel.bundle")
    rc, _, err = run([ptoc, spec, "-o", bundle])
    expect(rc == 0, "compile", err)
    table = (np.arange(400).reshape(10, 40) % 97).astype(np.float16)
    np.save(os.path.join(work, "table.npy"), table)
    good, bad = os.path.join(work, "good.npy"), os.path.join(work, "bad.npy")
    np.save(good, np.array([39, 0, 7], np.int32))
    np.save(bad, np.array([1, 40, 2], np.int32))
    tin = "table=" + os.path.join(work, "table.npy")
    out = os.path.join(work, "y.npy")
    rc, _, err = run([ptorun, bundle, "-q", "--input", tin, "--input", "sel=" + good, "--output", "y=" + out])
    expect(rc == 0 and np.array_equal(np.load(out), table[:, [39, 0, 7]]), "in range: the columns of NumPy", err)
    rc, _, err = run([ptorun, bundle, "-q", "--input", tin, "--input", "sel=" + bad])
    expect(rc == 1 and "isel.yaml:14:" in err and "axis 1 offset 40 extent 1 spans [40, 41) but the bound is 40" in err
           and "run-time values read from 'sel'" in err, "ptorun: index 40 on axis 1 is exit 1, located", err)
    rc, _, err = run([ptorun, bundle, "-q", "--input", tin, "--input", "sel=" + bad, "--runtime-debug-mode", "4"])
    expect(rc == 1 and "runtime_debug_mode 4: GM bounds check failed" in err and "reads tensor 'table' at offset [0, 40]"
           in err and "isel.yaml:14:" in err, "runtime_debug_mode 4 names the task and the window", err)
    rc, _, err = run([ptoc, "eval", spec, "--input", tin, "--input", "sel=" + bad, "--output", "y=" + out])
    expect(rc == 1 and "isel.yaml:14:" in err and "the window [40, 41) on axis 1 of 'table' is outside its extent 40"
           in err and "run-time value sel[1]" in err, "ptoc eval: the same index, located", err)


if __name__ == "__main__":
    main()
