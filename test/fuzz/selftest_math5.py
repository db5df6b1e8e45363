#!/usr/bin/env python3
"""Unit checks of gen_math5.py (meson test fuzz_math5_selftest, or alone):

1. its model on hand-computed values, and that seeds drawing no mathops5 statement keep their programs;
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_math5.WRONG) is caught on at least one forced seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_math5 as G5  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def env(tensors):
    return {"dims": {}, "tensors": {k: np.array(v, np.float64) for k, v in tensors.items()}, "values": {}}


def run(check):
    e = env({"a": [[-7, 7, 5, -128]], "b": [[2, -2, 0, 3]]})
    ev = lambda fn, dt: G5.Math5(fn, [M.Ref("a", dt), M.Ref("b", dt)], dt).ev(e).a.tolist()  # noqa: E731
    check("remainder: the divisor's sign, % 0 is 0", ev("remainder", "int32") == [[1, -1, 0, 1]])
    check("floor_div: toward -inf, // 0 is 0", ev("floor_div", "int32") == [[-4, -4, 0, -43]])
    check("ceil_div", ev("ceil_div", "int32") == [[-3, -3, 0, -42]])
    check("gcd: non-negative; int8 gcd(-128, 3) = 1", ev("gcd", "int8") == [[1, 1, 5, 1]])
    e = env({"a": [[1, -16, 3, -1]], "b": [[31, 2, 40, 70]]})
    check("<< past the width is 0, wraps to int32", ev("bitwise_left_shift", "int32") == [[-2 ** 31, -64, 0, 0]])
    check(">> past the width is the sign fill", ev("bitwise_right_shift", "int32") == [[0, -4, 0, -1]])
    e = env({"a": [[-7.5, 7.5, 1.0]], "b": [[2.0, -2.0, 0.1]]})
    check("float remainder / fmod signs", ev("remainder", "fp32")[0][:2] == [0.5, -0.5] and
          ev("fmod", "fp32")[0][:2] == [-1.5, 1.5])
    check("float floor_div floors the fp32 quotient (1 / 0.1 -> 10)", ev("floor_div", "fp32")[0][2] == 10.0)
    e = env({"a": [[-0.0, 0.0, np.nan, -np.inf, 2.0]]})
    sb = G5.Math5("signbit", [M.Ref("a", "fp32")], "fp32", out_dtype="fp32")
    check("signbit: -0.0 and -inf true, NaN false", sb.ev(e).a.tolist() == [[1, 0, 0, 1, 0]])
    check("... its text casts", sb.text() == "cast(signbit(a), fp32)")
    e = env({"x": [[-2.0, 1.0], [3.0, -1.0]], "w": [0.25, 0.5]})
    check("prelu: a weight per column of a rank-2 input",
          G5.Math5("prelu", [M.Ref("x", "fp32"), M.Ref("w", "fp32")], "fp32").ev(e).a.tolist() == [[-0.5, 1.0],
                                                                                                    [3.0, -0.5]])
    keeps_other_seeds(check, G5, "math5", range(3000, 3100), 10, 50)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G5, ptoc, ptorun, cache, "m5", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)

if __name__ == "__main__":
    selftest_main(run, wrong_models)
