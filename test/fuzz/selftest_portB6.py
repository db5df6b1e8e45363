#!/usr/bin/env python3
"""Unit checks of gen_portB6.py (meson test fuzz_portB6_selftest, or alone):

1. its model on a small input with a hand-computed result, and that seeds drawing none of its constructs keep
   their programs (needs no ptoc; no hook runs after it);
2. with --ptoc and --ptorun: every construct, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_portB6.WRONG) is caught on one of its forced
   seeds."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_portB6 as G6  # noqa: E402
import model as M  # noqa: E402
from gen_lang import RtIf  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    # rows [lo, lo + n) of x in blocks of 2: lo = [1, 0], n = [3, 1]; the if keeps batch 0, negates batch 1
    x = np.arange(12, dtype=np.float64).reshape(6, 2)
    t = {"lo": np.array([1.0, 0.0]), "ln": np.array([3.0, 1.0]), "x": x, "o": np.zeros((2, 2))}
    blk = M.View("x", "fp32", [2, 2], ["p6o", 0], ["min(2, p6n - p6j * 2)", 2])
    inner = [G6.RunScalar("p6o", "p6s + p6j * 2", lambda e: e["dims"]["p6s"] + e["dims"]["p6j"] * 2),
             M.Bind("a", M.Bin("+", M.Ref("a", "fp32"), M.Red("sum", blk, 0, True, "fp32"), "fp32"))]
    body = [G6.RunScalar("p6s", "lo[b]", lambda e: G6._elem(e, "lo", e["dims"]["b"])),
            G6.RunScalar("p6n", "ln[b]", lambda e: G6._elem(e, "ln", e["dims"]["b"])),
            G6.RunScalar("p6m", "ceildiv(p6n, 2)", lambda e: M.ceil_div(e["dims"]["p6n"], 2)),
            M.Loop("p6j", "p6m", inner, carry={"a": M.Full([1, 2], 0, "fp32")}),
            RtIf("if", "p6n > 1", lambda d: d["p6n"] > 1, [M.Assemble("o", ["b", 0], M.Ref("a", "fp32"))],
                 [M.Assemble("o", ["b", 0], M.Bin("*", M.Ref("a", "fp32"), M.Const(-1, "fp32"), "fp32"))])]
    M.run_program([M.Loop("b", 2, body)], {}, t)
    check("run scalars: batch 0 sums rows 1..3, batch 1 negates row 0",
          t["o"].tolist() == [[2 + 4 + 6, 3 + 5 + 7], [0, -1]])
    check("the construct's text binds the scalars by name", body[0].emit() == "p6s = lo[b]")

    keeps_other_seeds(check, G6, "portB6", range(2000, 2100), 2, 20)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G6, ptoc, ptorun, cache, "p6", seeds_right=2, seeds_wrong=6)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
