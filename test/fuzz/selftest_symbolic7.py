#!/usr/bin/env python3
"""Unit checks of gen_symbolic7.py (meson test fuzz_symbolic7_selftest, or alone):

1. its model on hand-computed values, its texts, and that seeds drawing no symbolic7 construct keep their
   programs (gen_symbolic7 runs after every other hook, so no other hook is left out);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_symbolic7.WRONG = the construct) is caught on a forced
   seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_symbolic7 as G7  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    x = np.arange(8, dtype=np.float64).reshape(2, 4)
    e = {"dims": {"P7B": 3}, "tensors": {"x": x, "ln": np.array([5.0, 1.0, 4.0])}, "values": {}}
    s = G7.Scalar(["p7bsz", "p7d"], "w.shape", lambda env: (env["dims"]["P7B"], 4))
    s.run(e)
    check("x.shape binds both extents", e["dims"]["p7bsz"] == 3 and e["dims"]["p7d"] == 4 and
          s.emit() == "p7bsz, p7d = w.shape")
    e["dims"]["p7b"] = 2
    n = G7.Scalar(["p7n"], "max(0, min(ln[p7b], p7bsz * 1 - p7b))",
                  lambda env: (max(0, min(G7._elem(env, "ln", env["dims"]["p7b"]), env["dims"]["p7bsz"] - 2)),))
    n.run(e)
    check("the mixed scalar takes the smaller side", e["dims"]["p7n"] == 1)
    rs = G7.ShapeReshape(M.Ref("x", "fp32"), "x", [2, 4], "fp32")
    check("reshape text", rs.text() == "reshape(reshape(x, [x.shape[0] * x.shape[1] // 2, 2]), x.shape)")
    check("reshape round trip keeps the value", rs.ev(e).a.tolist() == x.tolist())
    check("full text", G7.FullShape("x", [2, 4], 0.5, "fp32").text() == "full(x.shape, 0.5, fp32)")
    cd = G7.CastDtype(M.Ref("x", "fp32"), "x", "fp16")
    check("cast text", cd.text() == "cast(x, x.dtype)")
    keeps_other_seeds(check, G7, "symbolic7", range(4000, 4100), 3, 30)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, G7, ptoc, ptorun, cache, "p7", seeds_right=2, seeds_wrong=4)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
