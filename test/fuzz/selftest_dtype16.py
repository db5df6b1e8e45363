#!/usr/bin/env python3
"""Unit checks of gen_dtype16.py (meson test fuzz_dtype16_selftest, or alone):

1. its model on hand-computed values (uint64 past 2^63 ordered unsigned and exact, int16 wrap), its inputs of
   kind 'huge' exact, and that seeds drawing no construct keep their programs (no hook runs after it);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_dtype16.WRONG: the lowest bit flipped) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_dtype16 as G  # noqa: E402
from numerics import make_input  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    e = {"dims": {}, "values": {}, "tensors": {"a": np.array([[2 ** 63 + 1, 5]], np.uint64),
                                               "b": np.array([[2 ** 63, 2 ** 63]], np.uint64)}}
    ab = [("a", "uint64"), ("b", "uint64")]
    check("uint64 orders unsigned past 2^63", G.D16("gt(a, b)", lambda x, y: x > y, ab).ev(e).a.ravel().tolist() ==
          [1.0, 0.0])
    m = G.D16("maximum(a, b)", np.maximum, ab).ev(e)
    check("a uint64 maximum stays exact (2^63 + 1, not 2^63)", m.a.dtype == np.uint64 and
          m.a.ravel().tolist() == [2 ** 63 + 1, 2 ** 63])
    w = G.D16("maximum(a, b)", np.maximum, ab, wrong=True).ev(e)
    check("WRONG flips the lowest bit", w.a.ravel().tolist() == [2 ** 63, 2 ** 63 + 1])
    e16 = {"dims": {}, "values": {}, "tensors": {"a": np.array([[32767.0, -32768.0]])}}
    s = G.D16("a + a", lambda x: x + x, [("a", "int16")]).ev(e16)
    check("int16 add wraps as NumPy's", s.a.ravel().tolist() == [-2.0, 0.0])
    v, a = make_input(np.random.default_rng(1), "uint64", (64,), "huge")
    check("inputs of kind 'huge' are uint64 around 2^63, past 2^53, exact",
          a.dtype == np.uint64 and v is a and np.any(a > np.uint64(2 ** 63)) and np.any(a < np.uint64(2 ** 63)))
    keeps_other_seeds(check, G, "dtype16", range(3000, 3100), 5, 35)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G, ptoc, ptorun, cache, "d16", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
