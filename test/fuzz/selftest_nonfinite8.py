#!/usr/bin/env python3
"""Unit checks of gen_nonfinite8.py (meson test fuzz_nonfinite8_selftest, or alone):

1. the taint walk on hand-built programs: an input read only by safe ops (through a bound name and a loop
   carry) is taken, one that reaches a cast, a matmul or an unknown node is not; the minmax model keeps NaN
   (NumPy's maximum) and its wrong variant drops it; `mark` leaves the spec text unchanged; seeds drawing no
   nonfinite8 construct keep their programs (it runs after every other hook);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_nonfinite8.WRONG = the construct) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_nonfinite8 as G8  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


class Prog:
    def __init__(self, body):
        self.body = body


def run(check):
    x, w = M.Ref("x", "fp32"), M.Ref("w", "fp32")
    safe = Prog([M.Bind("t", M.Bin("maximum", x, M.Const(0.0, "fp32"), "fp32")),
                 M.Loop("b", 2, [M.Bind("acc", M.Bin("+", M.Ref("acc", "fp32"), M.Un("tanh", M.Ref("t", "fp32"),
                                                                                       "fp32"), "fp32"))],
                        carry={"acc": M.Full([2, 2], 0, "fp32")}),
                 M.Assemble("y", [0, 0], M.Red("amax", M.Ref("acc", "fp32"), -1, True, "fp32"))])
    check("safe ops, a bound name and a loop carry: taken", G8.safe_inputs(safe, ["x"]))
    cast = Prog([M.Bind("t", M.Bin("+", x, w, "fp32")), M.Assemble("y", [0, 0], M.Cast(M.Ref("t", "fp32"), "fp16"))])
    check("a cast of a bound name: not taken", not G8.safe_inputs(cast, ["x"]))
    mm = Prog([M.Assemble("ws", [0, 0], M.Un("abs", x, "fp32")),
               M.Assemble("y", [0, 0], M.Matmul(M.Ref("ws", "fp32"), w, "fp32"))])
    check("a matmul of a tensor written from it: not taken", not G8.safe_inputs(mm, ["x"]))
    check("... but the other operand is", G8.safe_inputs(Prog([M.Assemble("y", [0, 0], M.Bin("*", w, x, "fp32"))]),
                                                          ["w"]))
    sub = Prog([M.Assemble("y", [0, 0], M.Bin("+", M.Un("gelu", x, "fp32"), w, "fp32"))])
    check("gelu (NaN at -inf in the tanh form): not taken", not G8.safe_inputs(sub, ["x"]))
    e = {"dims": {}, "tensors": {"a": np.array([[np.nan, 1.0, -np.inf]]), "b": np.array([[2.0, np.nan, 0.0]])},
         "values": {}}
    mx = G8.MinMax("maximum", M.Ref("a", "fp32"), M.Ref("b", "fp32"), "fp32")
    r = mx.ev(e).a
    check("maximum keeps NaN on either side", np.isnan(r[0, 0]) and np.isnan(r[0, 1]) and r[0, 2] == 0.0)
    fm = G8.MinMax("minimum", M.Ref("a", "fp32"), M.Ref("b", "fp32"), "fp32", wrong=True).ev(e).a
    check("the wrong model (fmin) drops NaN", fm.tolist() == [[2.0, 1.0, -np.inf]])
    check("text", mx.text() == "maximum(a, b)")
    # mark: the same spec text; the marked inputs get the nonfinite kind.
    n_marked = 0
    for s in range(1, 80):
        G8.FORCE = "mark"
        p = gen.generate(s)
        G8.FORCE = None
        q = gen.generate(s, ["nonfinite8"])
        if G8.used(p):
            n_marked += 1
            ok = p.spec_text() == q.spec_text() and any(k == "nonfinite" for k in p.kinds.values())
            if not ok:
                check(f"mark keeps seed {s}'s spec text", False)
    check(f"mark keeps the spec text ({n_marked} of 79 forced seeds have safe inputs)", 20 < n_marked < 79)
    keeps_other_seeds(check, G8, "nonfinite8", range(4000, 4100), 8, 45)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, G8, ptoc, ptorun, cache, "n8", seeds_right=3, seeds_wrong=8)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
