"""int64 past 2^53 exactly through every layer (issue 13): values near 2^62 through transpose, concat, view and
assemble, index_select, index_put_ of int64 rows and elements (issue 13's second point), gather (an int64 index past int32 reads 0), cast to int32 (the low 32 bits, as NumPy's
astype) and then cumsum, add and mul wrapping in int32, cast to fp32 and back to int64. `ptoc eval` and
`ptorun` must both equal NumPy (int64 arithmetic) bit for bit, and `ptorun --check` must pass. (That --check
compares integers exactly, not through double where 2^62 + 1 equals 2^62, is test/eval/test_eval_int64_exact.cpp.)
Before the fix, `ptoc eval` rounded every int64 here through double.

    evalint6_int64_exact.py PTOC PTORUN
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from clitest import expect, run  # noqa: E402

SPEC = """ptoc: 1
name: i64x
inputs:
  big: {dtype: int64, shape: [4, 8]}
  big2: {dtype: int64, shape: [2, 8]}
  idx: {dtype: int64, shape: [4, 8]}
  x: {dtype: int32, shape: [4, 8]}
  sel: {dtype: int64, shape: [2]}
  pi: {dtype: int64, shape: [3]}
  pj: {dtype: int64, shape: [3]}
  pv: {dtype: int64, shape: [3, 8]}
  pe: {dtype: int64, shape: [3]}
outputs:
  t: {dtype: int64, shape: [8, 4]}
  c: {dtype: int64, shape: [6, 8]}
  v: {dtype: int64, shape: [4, 8]}
  g: {dtype: int32, shape: [4, 8]}
  lo: {dtype: int32, shape: [4, 8]}
  s: {dtype: int32, shape: [4, 8]}
  m: {dtype: int32, shape: [4, 8]}
  a: {dtype: int32, shape: [4, 8]}
  f: {dtype: fp32, shape: [4, 8]}
  back: {dtype: int64, shape: [4, 8]}
  is: {dtype: int64, shape: [2, 8]}
  pn: {dtype: int64, shape: [4, 8]}
  pe2: {dtype: int64, shape: [4, 8]}
body:
  - vec_tile: [4, 8]
  - "t[0:, 0:] = transpose(big, 0, 1)"
  - "c[0:, 0:] = concat([big, big2], 0)"
  - "v[0:, 0:] = big"
  - "v[1:3, 2:6] = view(big, [2, 4], [2, 4])"
  - "g[0:, 0:] = gather(x, 1, idx)"
  - "l32 = cast(big, int32)"
  - "lo[0:, 0:] = l32"
  - "s[0:, 0:] = cumsum(l32, 1)"
  - "m[0:, 0:] = l32 * l32"
  - "a[0:, 0:] = l32 + l32"
  - "f[0:, 0:] = cast(big, fp32)"
  - "back[0:, 0:] = cast(l32, int64)"
  - "is[0:, 0:] = index_select(big, 0, sel)"
  - vec_tile: [3]
  - "pi32 = cast(pi, int32, satmode=ON)"     # 2^62 + 1 saturates to 2^31 - 1: past the axis
  - "pj32 = cast(pj, int32, satmode=ON)"
  - vec_tile: [4, 8]
  - "pn[0:, 0:] = index_put_(big, [pi32], pv)"
  - "pe2[0:, 0:] = index_put_(big, [pi32, pj32], pe)"
"""


def inputs():
    rng = np.random.default_rng(9800)
    # Near +-2^62: every value differs from its neighbours in the low bits only, which double cannot hold.
    big = (np.int64(2 ** 62) + rng.integers(-2 ** 40, 2 ** 40, (4, 8))) * rng.choice([-1, 1], (4, 8))
    big[0, :4] = [2 ** 62 + 1, 2 ** 62 + 2, 2 ** 62 + 3, 2 ** 63 - 1]
    big[1, :3] = [-2 ** 63, -2 ** 62 - 1, 2 ** 53 + 1]
    big = big.astype(np.int64)
    big2 = (np.int64(-2 ** 61) - np.arange(16, dtype=np.int64)).reshape(2, 8)
    idx = rng.integers(0, 8, (4, 8)).astype(np.int64)
    idx[0, 0], idx[1, 1], idx[2, 2], idx[3, 3] = 2 ** 62 + 3, -2 ** 62, 2 ** 32 + 1, 8  # outside the axis: 0
    x = rng.integers(-2 ** 31, 2 ** 31, (4, 8)).astype(np.int32)
    sel = np.array([3, 1], np.int64)
    # index_put_ rows 2, (past the axis: nothing), 2 again (the later write wins); its values near -2^62.
    pi = np.array([2, 2 ** 62 + 1, 2], np.int64)
    pj = np.array([7, 0, 5], np.int64)
    pv = (np.int64(-2 ** 62) - rng.integers(0, 2 ** 40, (3, 8))).astype(np.int64)
    pe = np.array([2 ** 62 + 11, 2 ** 62 + 12, -2 ** 62 - 13], np.int64)
    return {"big": big, "big2": big2, "idx": idx, "x": x, "sel": sel, "pi": pi, "pj": pj, "pv": pv, "pe": pe}


def reference(i):
    big = i["big"]
    with np.errstate(over="ignore"):
        l32 = big.astype(np.int32)  # wraps: the low 32 bits
        v = big.copy()
        v[1:3, 2:6] = big[2:4, 4:8]
        ok = (i["idx"] >= 0) & (i["idx"] < 8)
        g = np.where(ok, np.take_along_axis(i["x"], np.where(ok, i["idx"], 0), 1), 0).astype(np.int32)
        pn, pe2 = big.copy(), big.copy()
        for t, r in enumerate(i["pi"]):
            if 0 <= r < 4:
                pn[r] = i["pv"][t]
                pe2[r, i["pj"][t]] = i["pe"][t]
        return {"pn": pn, "pe2": pe2, "t": big.T.copy(), "c": np.concatenate([big, i["big2"]], 0), "v": v, "g": g, "lo": l32,
                "s": np.cumsum(l32, 1, dtype=np.int32), "m": (l32 * l32).astype(np.int32),
                "a": (l32 + l32).astype(np.int32), "f": big.astype(np.float32), "back": l32.astype(np.int64),
                "is": big[i["sel"]]}


def main():
    ptoc, ptorun = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ptoc-evalint6-")
    spec = os.path.join(work, "i64x.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    ins = inputs()
    ref = reference(ins)
    # The test's premise: these outputs are not representable through double.
    expect(any((r.dtype == np.int64 and not np.array_equal(r.astype(np.float64).astype(np.int64), r))
               for r in ref.values() if r.dtype == np.int64), "the int64 outputs hold values double rounds")
    args = []
    for name, arr in ins.items():
        p = os.path.join(work, name + ".npy")
        np.save(p, arr)
        args += ["--input", f"{name}={p}"]
    for tool, cmd in (("ptoc eval", [ptoc, "eval", spec]), ("ptorun", None)):
        outdir = os.path.join(work, tool.replace(" ", "_"))
        os.makedirs(outdir)
        outs = []
        for name in ref:
            outs += ["--output", f"{name}={os.path.join(outdir, name + '.npy')}"]
        if cmd is None:
            bundle = os.path.join(work, "i64x.bundle")
            rc, _, err = run([ptoc, spec, "-o", bundle])
            expect(rc == 0, "compile", err)
            cmd = [ptorun, bundle, "-q", "--check"]
        rc, out, err = run(cmd + args + outs)
        expect(rc == 0, f"{tool} runs" + (" and --check passes" if "--check" in cmd else ""), out + err)
        for name, want in ref.items():
            got = np.load(os.path.join(outdir, name + ".npy"))
            bad = np.argwhere(got != want)
            expect(got.dtype == want.dtype and got.shape == want.shape and bad.size == 0,
                   f"{tool}: {name} equals NumPy bit for bit ({want.dtype})",
                   f"first differing element {bad[:1].tolist()}: got {got[tuple(bad[0])] if bad.size else ''}, "
                   f"expected {want[tuple(bad[0])] if bad.size else ''}")


if __name__ == "__main__":
    main()
