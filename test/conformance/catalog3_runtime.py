"""In-place outputs and scatter_update through the CLI (catalog3):
- `ptorun --input kin=OLD --output kc=NEW` of an output declared `inplace: kin` gives NumPy's updated cache,
  the rows no slot names unchanged, the same bytes on a second run and with runtime_debug_mode 3 (the
  dependency check between tasks) and 4 (GM bounds checks); `ptoc eval` gives the same array;
- a slot outside the cache stops ptorun (every mode; runtime_debug_mode 4 names the task) and ptoc eval with
  exit 1 and a message located at the scatter_update statement that names the run-time value.

    catalog3_runtime.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

SPEC = """ptoc: 1
name: kv_update
dims:
  T: {dynamic: true, max: 64}
  NB: {dynamic: true, max: 64}
  BS: 4
  D: 32
inputs:
  rows: {dtype: int8, shape: [T, D]}
  slots: {dtype: int32, shape: [T], values: [0, 7]}
  kin: {dtype: int8, shape: [NB, BS, 1, D]}
outputs:
  kc: {dtype: int8, shape: [NB, BS, 1, D], inplace: kin}
body:
  - "s2 = reshape(slots, [T, 1], inplace=true)"
  - loop: {var: t, count: T, unroll: [4, 1], factor: u}
    body:
      - "idx = view(s2, [u, 1], [t, 0], valid=[u, 1])"
      - vec_tile: [u, 1, 1, 32]
      - "kc = scatter_update(kin, -2, idx, reshape(view(rows, [u, D], [t, 0], valid=[u, D]), [u, 1, 1, D]))"
"""


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-catalog3-")
    spec = os.path.join(work, "kv_update.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    bundle = os.path.join(work, "kv.bundle")
    rc, _, err = run([ptoc, spec, "-o", bundle])
    expect(rc == 0, "compile", err)
    rng = np.random.default_rng(13)
    T, NB = 6, 3
    rows = rng.integers(-128, 128, (T, 32)).astype(np.int8)
    kin = rng.integers(-128, 128, (NB, 4, 1, 32)).astype(np.int8)
    good = np.array([5, 0, 11, 5, 7, 2], np.int32)  # slot 5 twice: the later token wins
    want = kin.copy()
    for t, s in enumerate(good):
        want[s // 4, s % 4, 0] = rows[t]
    paths = {}
    for name, arr in (("rows", rows), ("kin", kin), ("good", good), ("bad", np.array([5, 0, 12, 1, 2, 3], np.int32)),
                      ("neg", np.array([5, -1, 1, 1, 2, 3], np.int32))):
        paths[name] = os.path.join(work, name + ".npy")
        np.save(paths[name], arr)
    base = ["--input", "rows=" + paths["rows"], "--input", "kin=" + paths["kin"]]
    outs = []
    for extra in ([], [], ["--runtime-debug-mode", "3"], ["--runtime-debug-mode", "4"], ["--check"]):
        out = os.path.join(work, f"kc{len(outs)}.npy")
        rc, _, err = run([ptorun, bundle, "-q"] + base + ["--input", "slots=" + paths["good"], "--output", "kc=" + out]
                         + extra)
        expect(rc == 0, "ptorun " + " ".join(extra), err)
        outs.append(np.load(out))
    expect(np.array_equal(outs[0], want), "ptorun: NumPy's cache, the later of two rows at slot 5, the rest kept")
    expect(all(o.tobytes() == outs[0].tobytes() for o in outs), "the same bytes in every run and mode")
    ev = os.path.join(work, "kc_eval.npy")
    rc, _, err = run([ptoc, "eval", spec] + base + ["--input", "slots=" + paths["good"], "--output", "kc=" + ev])
    expect(rc == 0 and np.array_equal(np.load(ev), want), "ptoc eval: the same cache", err)
    for bad, off in (("bad", "offset 3 extent 1 spans [3, 4) but the bound is 3"),
                     ("neg", "offset -1 extent 1 spans [-1, 0) but the bound is 3")):
        args = base + ["--input", "slots=" + paths[bad]]
        rc, _, err = run([ptorun, bundle, "-q"] + args)
        expect(rc == 1 and "kv_update.yaml:20:15:" in err and "out-of-bounds write to tensor 'kc'" in err and off in err
               and "run-time values read from 'slots'" in err, f"ptorun: slot {bad} is exit 1, located", err)
        rc, _, err = run([ptorun, bundle, "-q", "--runtime-debug-mode", "4"] + args)
        expect(rc == 1 and "runtime_debug_mode 4: GM bounds check failed" in err and "writes tensor 'kc'" in err
               and "kv_update.yaml:20:15)" in err, f"runtime_debug_mode 4 names the task ({bad})", err)
        rc, _, err = run([ptoc, "eval", spec] + args)
        expect(rc == 1 and "kv_update.yaml:20:15:" in err and "assemble into kc: the box" in err and
               "is outside its extent 3: its offset is computed from the run-time value slots[" in err,
               f"ptoc eval: slot {bad}, located", err)
    # Reads of an input after writes to its in-place output, across root functions: the dependency check
    # (runtime_debug_mode 3) finds any pair of tasks touching one GM box that no edge orders.
    rw = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", "catalog3_inplace_rw.yaml")
    rwb = os.path.join(work, "rw.bundle")
    rc, _, err = run([ptoc, rw, "-o", rwb])
    expect(rc == 0, "compile catalog3_inplace_rw", err)
    rc, _, err = run([ptorun, rwb, "-q", "--dim", "B=11", "--check", "--runtime-debug-mode", "3"])
    expect(rc == 0, "catalog3_inplace_rw: --check with the dependency check (mode 3)", err)


if __name__ == "__main__":
    main()
