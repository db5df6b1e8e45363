#!/usr/bin/env python3
"""Unit checks of gen_evalint6.py (meson test fuzz_evalint6_selftest, or alone):

1. its model on hand-computed values (int64 past 2^53 exact, int32 wrap), its inputs near 2^62 exact, and that
   seeds drawing no int64 construct keep their programs (no hook runs after it);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_evalint6.WRONG: one off in the low bits) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_evalint6 as G6  # noqa: E402
from numerics import make_input  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    check("wrap32: the low 32 bits, signed", G6.wrap32([2 ** 62 + 5, 2 ** 62 + 2 ** 32 - 1, -2 ** 62 - 129,
                                                       2 ** 31]).tolist() == [5, -1, -129, -2 ** 31])
    e = {"dims": {}, "values": {}, "tensors": {"h": np.array([[2 ** 62 + 1, -2 ** 62 - 3]], np.int64)}}
    t = G6.E6("transpose(h, 0, 1)", lambda a: a.T.copy(), ["h"]).ev(e)
    check("a moved int64 stays exact (2^62 + 1, not 2^62)", t.a.dtype == np.int64 and
          t.a.ravel().tolist() == [2 ** 62 + 1, -2 ** 62 - 3])
    w = G6.E6("cast(h, int32)", lambda a: G6.wrap32(a), ["h"], wrong=True).ev(e)
    check("WRONG is one off in the exact int32 low bits", w.a.ravel().tolist() == [2, -2])
    v, a = make_input(np.random.default_rng(1), "int64", (64,), "huge")
    check("inputs of kind 'huge' are int64 near +-2^62, past 2^53, and exact",
          a.dtype == np.int64 and v is a and np.all(np.abs(a) >= 2 ** 61) and
          np.any(a.astype(np.float64).astype(np.int64) != a))
    keeps_other_seeds(check, G6, "evalint6", range(3000, 3100), 5, 35)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G6, ptoc, ptorun, cache, "e6", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
