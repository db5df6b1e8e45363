#!/usr/bin/env python3
"""Unit checks of gen_port6a.py (meson test fuzz_port6a_selftest, or alone):

1. its model on hand-computed values, its texts, and that seeds drawing no port6a construct keep their programs
   (gen_port6a runs after every other hook, so no other hook is left out);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_port6a.WRONG = the construct) is caught on a forced seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_port6a as G6  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    e = {"dims": {"p6sc": 1.5}, "tensors": {"x": np.arange(8, dtype=np.float64).reshape(4, 2) - 3,
                                            "o": np.zeros((4, 2))}, "values": {}}
    v = G6.ViewValidShape("x", "fp32", [4, 2], [0, 0], [3, 2])
    check("view text uses PyPTO's valid_shape", v.text() == "view(x, [4, 2], [0, 0], valid_shape=[3, 2])")
    r = G6.ReshapeValid(v, [4, 1, 2], [2, 1, 2], "fp32")
    got = r.ev(e)
    check("reshape valid_shape narrows to 2 rows", tuple(got.valid) == (2, 1, 2) and got.a[:2, 0].tolist() == [[-3, -2], [-1, 0]])
    d = G6.DivPrecision(M.Ref("x", "fp32"), M.Const(2.0, "fp32"), "fp32", "INTRINSIC")
    check("div text", d.text() == "div(x, 2.0, INTRINSIC)")
    a = G6.AssembleCall("o", [1, 0], M.Ref("x", "fp32"))
    check("assemble call text", a.emit() == "assemble(x, [1, 0], o)")
    a.run(e)
    check("assemble call writes at the offset, clipped", e["tensors"]["o"][1:].tolist() == [[-3, -2], [-1, 0], [1, 2]])
    f = G6.FloatIf("p6sc != 1.0", [G6.FloatBind("p6t", 1.0)], [G6.FloatBind("p6t", 2.0)])
    f.run(e)
    check("float if takes then for 1.5 != 1.0", e["dims"]["p6t"] == 1.0)
    keeps_other_seeds(check, G6, "port6a", range(3000, 3100), 5, 45)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, G6, ptoc, ptorun, cache, "p6", seeds_right=2, seeds_wrong=3)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
