#!/usr/bin/env python3
"""Unit checks of gen_catalog4.py (meson test fuzz_catalog4_selftest, or alone):

1. its model nodes on small inputs with hand-computed results, and that seeds drawing none of its constructs keep
   their programs (needs no ptoc);
2. with --ptoc and --ptorun: every construct, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_catalog4.WRONG) is caught: at least one of its
   forced seeds is no longer a pass. A construct whose wrong model went unnoticed would be one the fuzzer cannot
   find a miscompile in."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_catalog4 as G4  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402
from gen_index_ops import Scatter  # noqa: E402


def env(tensors, dims=None):
    return {"dims": dict(dims or {}), "tensors": {k: np.array(v, np.float64) for k, v in tensors.items()},
            "values": {}}


def run(check):
    # index_put_ with two index tensors: the last write of a tuple wins, a tuple outside writes nothing
    e = env({"x": [[1, 2], [3, 4], [5, 6]], "i0": [0, 2, 0, -1], "i1": [1, 0, 1, 0], "v": [10, 20, 30, 40]})
    node = G4.IndexPutMulti(M.Ref("x", "fp32"), [M.Ref("i0", "int32"), M.Ref("i1", "int32")], M.Ref("v", "fp32"),
                            "fp32", False)
    check("index_put_(x, [i0, i1], v): last write wins, (-1, 0) skipped",
          np.array_equal(node.ev(e).a, [[1, 30], [3, 4], [20, 6]]))
    check("... its text", node.text() == "index_put_(x, [i0, i1], v)")
    node.accumulate = True
    check("... accumulate=true adds every hit", np.array_equal(node.ev(e).a, [[1, 42], [3, 4], [25, 6]]))
    e = env({"x": np.zeros((2, 1, 2)), "i0": [1, 1], "v": [[[1, 2]], [[3, 4]]]})
    node = G4.IndexPutMulti(M.Ref("x", "fp32"), [M.Ref("i0", "int32")], M.Ref("v", "fp32"), "fp32", False)
    check("index_put_ of one index over a rank-3 input: whole [1, 2] slices",
          np.array_equal(node.ev(e).a, [[[0, 0]], [[3, 4]]]))

    # compile-time constants: bindings, an if on a constant, scalars and slice bounds that read them
    body = [G4.ConstBind("c4k", "3"), G4.ConstBind("c4w", "min(c4k * 2, 5)"),
            G4.ConstIf("c4k <= 2", [G4.ConstBind("c4s", "2")], [G4.ConstBind("c4s", "-1 * c4k")]),
            M.Assemble("o", [0, 0], M.Bin("*", M.Slice("x", "fp32", [0, 0], ["c4w", 2]), G4.ConstScalar("c4s", "fp32"),
                                          "fp32"))]
    x = np.arange(12.0).reshape(6, 2)
    t = M.run_program(body, {}, {"x": x, "o": np.zeros((5, 2))})
    check("c4w = min(c4k * 2, 5), else branch c4s = -3: o = x[0:5] * -3", np.array_equal(t["o"], x[:5] * -3))
    body = [G4.ConstBind("c4f", "False"), G4.ConstIf("not c4f", [G4.ConstBind("c4s", "2")], [G4.ConstBind("c4s", "5")]),
            M.Assemble("o", [0, 0], M.Bin("+", M.Ref("x", "fp32"), G4.ConstScalar("c4s", "fp32"), "fp32"))]
    t = M.run_program(body, {}, {"x": x, "o": np.zeros((6, 2))})
    check("c4f = False; if not c4f: c4s = 2", np.array_equal(t["o"], x + 2))
    check("... the if emits its branches", body[1].emit() == {"if": "not c4f", "then": ["c4s = 2"], "else": ["c4s = 5"]})

    # tile_t = the unroll factor, per gear: 7 rows with gears [4, 2] are 4 + 2 + 1
    loop = M.Loop("c4b", "C4T", [G4.ConstBind("c4t", "c4u"),
                                 M.Assemble("o", ["c4b", 0], M.Bin("*", M.Slice("x", "fp32", ["c4b", 0], ["c4b + c4t", 1]),
                                                                   G4.ConstScalar("c4t", "fp32"), "fp32"))],
                  unroll=[4, 2], factor="c4u")
    x = np.ones((7, 1))
    t = M.run_program([loop], {"C4T": 7}, {"x": x, "o": np.zeros((7, 1))})
    check("c4t = c4u per gear: rows x4 x4 x4 x4 x2 x2 x1", t["o"][:, 0].tolist() == [4, 4, 4, 4, 2, 2, 1])

    # pad with a quoted mode; isnan of a sqrt; log10, lrelu, hypot as elaborate_compose_math.cpp composes them
    pad = G4.PadString(M.Ref("x", "fp32"), 1, 2, 1.5, "'", "fp32")
    r = pad.ev(env({"x": [[1, 2]]}))
    check("pad(x, [0, 1, 0, 2], mode='constant', value=1.5)",
          np.array_equal(r.a, [[1, 2, 1.5], [1.5, 1.5, 1.5], [1.5, 1.5, 1.5]]) and
          pad.text() == "pad(x, [0, 1, 0, 2], mode='constant', value=1.5)")
    e = env({"x": [[-1, 0, 2, 100]], "y": [[3, 4, 0, 1]]})
    check("cast(isnan(sqrt(x)), fp32) is 1 where x < 0",
          G4.IsNanOf(M.Ref("x", "fp32"), "fp32").ev(e).a.tolist() == [[1, 0, 0, 0]])
    lg = G4.Fn("log10", [M.Ref("x", "fp32")], "fp32").ev(e).a[0, 3]
    check("log10(100) = 2 (log rounded, times 1/ln 10)", abs(lg - 2) < 1e-6)
    check("lrelu(x, negative_slope=0.5)",
          G4.Fn("lrelu", [M.Ref("x", "fp32")], "fp32", slope=0.5).ev(e).a.tolist() == [[-0.5, 0, 2, 100]])
    check("lrelu's default slope 0.01",
          abs(G4.Fn("lrelu", [M.Ref("x", "fp32")], "fp32").ev(e).a[0, 0] + 0.01) < 1e-8)
    check("hypot(x, y)", np.allclose(G4.Fn("hypot", [M.Ref("x", "fp32"), M.Ref("y", "fp32")], "fp32").ev(e).a,
                                     [[np.sqrt(10), 4, 2, np.sqrt(10001)]]))

    # rank-3 scatter along axis 0 (written -3)
    e = env({"x": np.zeros((2, 1, 2)), "i": [[[1, 0]]], "s": [[[7, 8]]]})
    sc = Scatter(M.Ref("x", "fp32"), -3, M.Ref("i", "int32"), M.Ref("s", "fp32"), None, "fp32")
    r = G4._with_dim(sc, 0, sc.ev, e)
    check("scatter(x, -3, i, s) of a rank-3 x", np.array_equal(r.a, [[[0, 8]], [[7, 0]]]) and sc.dim == -3)

    # the hook draws from its own stream: a seed that draws none generates what it did before, and one that
    # draws a construct keeps the statements before it
    keeps_other_seeds(check, G4, "catalog4", range(2000, 2100), 10, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G4, ptoc, ptorun, cache, "c4", seeds_right=2, seeds_wrong=4)

if __name__ == "__main__":
    selftest_main(run, wrong_models)
