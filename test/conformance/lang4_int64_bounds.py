"""int64 (PyPTO's DT_INT64) through the CLI (lang4): a paged cache updated by scatter_update at slots read
from an int64 input. In range, ptorun's cache equals NumPy's and an int64 output is written as <i8 bit-exact
(values past 2^53 too); a slot past the cache (one past it, and one past int32: 2^40) stops ptorun with a
located error, in mode 0 and in runtime_debug_mode 4 (the GM bounds check), and ptoc eval the same.

    lang4_int64_bounds.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

SPEC = """ptoc: 1
name: su64
dims:
  T: 4
  D: 16
inputs:
  rows: {dtype: fp32, shape: [T, D]}
  slots: {dtype: int64, shape: [T], values: [0, 7]}
  big: {dtype: int64, shape: [2, 8]}
  cache_in: {dtype: fp32, shape: [8, D]}
outputs:
  cache: {dtype: fp32, shape: [8, D], inplace: cache_in}
  big_out: {dtype: int64, shape: [8, 2]}
body:
  - "s2 = reshape(slots, [T, 1], inplace=true)"
  - vec_tile: [4, 16]
  - "cache = scatter_update(cache_in, -2, s2, rows)"
  - "big_out[0:, 0:] = transpose(big, 0, 1)"
"""


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-lang4-")
    spec = os.path.join(work, "su64.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    bundle = os.path.join(work, "su64.bundle")
    rc, _, err = run([ptoc, spec, "-o", bundle])
    expect(rc == 0, "compile", err)
    rows = np.arange(64, dtype=np.float32).reshape(4, 16)
    cache = -np.ones((8, 16), np.float32)
    big = np.array([[2 ** 62 + 1, -2 ** 60 - 3, 2 ** 53 + 1, -1, 0, 1, 2 ** 31, -2 ** 31 - 1]] * 2, np.int64)
    big[1] = big[1][::-1]
    paths = {}
    for name, arr in (("rows", rows), ("cache_in", cache), ("big", big), ("good", np.array([3, 0, 3, 7], np.int64)),
                      ("past", np.array([1, 8, 2, 0], np.int64)), ("huge", np.array([2 ** 40, 1, 2, 3], np.int64))):
        paths[name] = os.path.join(work, name + ".npy")
        np.save(paths[name], arr)
    common = ["--input", "rows=" + paths["rows"], "--input", "cache_in=" + paths["cache_in"],
              "--input", "big=" + paths["big"]]
    out_c, out_b = os.path.join(work, "cache.npy"), os.path.join(work, "big_out.npy")
    rc, _, err = run([ptorun, bundle, "-q", *common, "--input", "slots=" + paths["good"], "--output",
                      "cache=" + out_c, "--output", "big_out=" + out_b])
    want = cache.copy()
    for t, s in enumerate([3, 0, 3, 7]):
        want[s] = rows[t]
    got_b = np.load(out_b) if rc == 0 else None
    expect(rc == 0 and np.array_equal(np.load(out_c), want), "in range: the cache of NumPy (the later token wins)", err)
    expect(got_b is not None and got_b.dtype == np.int64 and np.array_equal(got_b, big.T),
           "an int64 output is <i8, bit-exact past 2^53", err)
    for bad, at in (("past", "8"), ("huge", str(2 ** 40))):
        rc, _, err = run([ptorun, bundle, "-q", *common, "--input", "slots=" + paths[bad]])
        expect(rc == 1 and "su64.yaml:" in err and at in err and "run-time values read from 'slots'" in err,
               f"ptorun: slot {at} past the cache is exit 1, located", err)
        rc, _, err = run([ptorun, bundle, "-q", *common, "--input", "slots=" + paths[bad], "--runtime-debug-mode", "4"])
        expect(rc == 1 and "su64.yaml:" in err and at in err, f"runtime_debug_mode 4: slot {at} stops the run", err)
        rc, _, err = run([ptoc, "eval", spec, *common, "--input", "slots=" + paths[bad], "--output", "cache=" + out_c])
        expect(rc == 1 and "su64.yaml:" in err and "outside" in err, f"ptoc eval: slot {at}, located", err)


if __name__ == "__main__":
    main()
