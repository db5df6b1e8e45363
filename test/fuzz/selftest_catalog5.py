#!/usr/bin/env python3
"""Unit checks of gen_catalog5.py (meson test fuzz_catalog5_selftest, or alone):

1. its model nodes on small inputs with results from PyPTO's docs (the interleave / deinterleave / gathermask
   examples of docs/zh/api/operation/), and that seeds drawing none of its constructs keep their programs;
2. with --ptoc and --ptorun: every construct, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_catalog5.WRONG) is caught on one of its forced
   seeds."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_catalog5 as G5  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def env(tensors):
    return {"dims": {}, "tensors": {k: np.array(v, np.float64) for k, v in tensors.items()}, "values": {}}


def run(check):
    # PyPTO's interleave example: input [[0..3], [4..7]], other [[10..13], [14..17]]
    e = env({"x": [[0, 1, 2, 3], [4, 5, 6, 7]], "y": [[10, 11, 12, 13], [14, 15, 16, 17]]})
    o0, o1 = G5.Pair("interleave", M.Ref("x", "fp32"), M.Ref("y", "fp32"), "fp32").ev_both(e)
    check("interleave: PyPTO's example out0", o0.a.tolist() == [[0, 10, 1, 11], [4, 14, 5, 15]])
    check("interleave: PyPTO's example out1", o1.a.tolist() == [[2, 12, 3, 13], [6, 16, 7, 17]])
    # deinterleave of those halves gives the inputs back; its one-input form on the whole stream
    e["tensors"]["p"], e["tensors"]["q"] = o0.a, o1.a
    d0, d1 = G5.Pair("deinterleave", M.Ref("p", "fp32"), M.Ref("q", "fp32"), "fp32").ev_both(e)
    check("deinterleave(out0, out1) is (input, other)", d0.a.tolist() == e["tensors"]["x"].tolist() and
          d1.a.tolist() == e["tensors"]["y"].tolist())
    e["tensors"]["s"] = np.array([[0, 10, 1, 11, 2, 12, 3, 13], [4, 14, 5, 15, 6, 16, 7, 17]], np.float64)
    s0, s1 = G5.Pair("deinterleave", M.Ref("s", "fp32"), None, "fp32").ev_both(e)
    check("deinterleave(stream): PyPTO's one-input example", s0.a.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]] and
          s1.a.tolist() == [[10, 11, 12, 13], [14, 15, 16, 17]] and s0.valid == (2, 4))
    check("... its text", G5.Pair("deinterleave", M.Ref("s", "fp32"), None, "fp32").text() == "deinterleave(s)")
    # PyPTO's gathermask example: mode 1 of [[0..5], [6..11], [12..17]]
    e = env({"x": np.arange(18).reshape(3, 6)})
    check("gathermask(x, 1): PyPTO's example",
          G5.GatherMask(M.Ref("x", "int32"), 1, "int32").ev(e).a.tolist() == [[0, 2, 4], [6, 8, 10], [12, 14, 16]])
    e = env({"x": np.arange(8).reshape(1, 8)})
    got = [G5.GatherMask(M.Ref("x", "int32"), m, "int32").ev(e).a.tolist() for m in range(1, 8)]
    check("gathermask modes 1..7", got == [[[0, 2, 4, 6]], [[1, 3, 5, 7]], [[0, 4]], [[1, 5]], [[2, 6]], [[3, 7]],
                                           [list(range(8))]])
    # index_add_ub: PyPTO's example (x zeros [2, 3], index [0, 1, 0], source ones): [[2, 2, 2], [1, 1, 1]]
    e = env({"x": np.zeros((2, 3)), "i": [0, 1, 0], "s": np.ones((3, 3))})
    node = G5.IndexAddUb("index_add__ub", M.Ref("x", "int32"), 0, M.Ref("i", "int32"), M.Ref("s", "int32"), "int32")
    check("index_add__ub: PyPTO's example", node.ev(e).a.tolist() == [[2, 2, 2], [1, 1, 1]] and
          node.text() == "index_add__ub(x, 0, i, s)")
    # transposed_batchmatmul: [M, B, K] x [B, K, N] -> [M, B, N]
    a, b = np.arange(12.0).reshape(2, 3, 2), np.arange(12.0).reshape(3, 2, 2)
    e = env({"a": a, "b": b})
    want = np.stack([a[:, j, :] @ b[j] for j in range(3)], axis=1)
    check("transposed_batchmatmul", np.array_equal(G5.TBMM(M.Ref("a", "fp16"), M.Ref("b", "fp16"), "fp32").ev(e).a,
                                                   want))

    # gather_in_ub: PyPTO's doc example (tokens t = rows [10 t, 10 t + 1, ...], indices [0, 4, 3], block table
    # [0, 2, 1], block size 2): rows 0, 2 and 5
    e = env({"p": [[10 * t + c for c in range(4)] for t in range(6)], "i": [[0, 4, 3]], "b": [[0, 2, 1]]})
    node = G5.GatherInUb(M.Ref("p", "fp32"), M.Ref("i", "int32"), M.Ref("b", "int32"), 2, "fp32")
    check("gather_in_ub: PyPTO's example", node.ev(e).a.tolist() == [[0, 1, 2, 3], [20, 21, 22, 23],
                                                                      [50, 51, 52, 53]])
    e["tensors"]["i"] = np.array([[-1, 6, 1]], np.float64)
    check("... an index below or past the table reads a row of 0",
          node.ev(e).a.tolist() == [[0] * 4, [0] * 4, [10, 11, 12, 13]])

    # atomic_add: PyPTO's example (out [4, 4] with ones at [0:2, 0:2], x ones [2, 2] at [0, 0]), then a second
    # window [1:3, 1:3] overlapping it; a src with a tail adds only its valid rows
    out = np.zeros((4, 4))
    out[0:2, 0:2] = 1
    t = M.run_program([G5.AtomicAdd(M.Ref("x", "fp32"), [0, 0], "o"), G5.AtomicAdd(M.Ref("x", "fp32"), [1, 1], "o")],
                      {}, {"x": np.ones((2, 2)), "o": out})
    check("atomic_add: PyPTO's example, then an overlapping window",
          t["o"].tolist() == [[2, 2, 0, 0], [2, 3, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]])
    src = M.Slice("x", "fp32", [0, 0], [2, 2])
    t = M.run_program([G5.AtomicAdd(src, [0, 0], "o")], {}, {"x": np.ones((1, 2)), "o": np.zeros((2, 2))})
    check("atomic_add of a window with a tail adds its valid row", t["o"].tolist() == [[1, 1], [0, 0]])
    check("... its text", G5.AtomicAdd(src, ["c5i * 2", 0], "o").emit() == "atomic_add(x[0:2, 0:2], [c5i * 2, 0], o)")

    # the hook draws from its own stream: a seed that draws none generates what it did before, and one that
    # draws a construct keeps the statements before it
    keeps_other_seeds(check, G5, "catalog5", range(2000, 2100), 8, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G5, ptoc, ptorun, cache, "c5", seeds_right=2, seeds_wrong=4)

if __name__ == "__main__":
    selftest_main(run, wrong_models)
