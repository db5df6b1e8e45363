#!/usr/bin/env python3
"""Unit checks of gen_fp8_19.py (meson test fuzz_fp8_19_selftest, or alone):

1. its model on hand examples (OCP's tables: ties to even, e4m3 saturating at 448, e5m2's overflow to inf),
   and that seeds drawing no fp8 statement keep their programs (gen_fp8_19 runs after every other hook);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_fp8_19.WRONG) is caught on at least one seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_fp8_19 as G  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    from numerics import rnd
    x = np.array([1.0625, 1.1875, 464.0, 465.0, np.inf, 2.0 ** -10, 3 * 2.0 ** -10])
    check("e4m3 ties to even, saturates", rnd(x, "fp8e4m3").tolist() == [1.0, 1.25, 448.0, 448.0, 448.0, 0.0, 2.0 ** -8])
    y = rnd(np.array([1.125, 61439.0, 61440.0, -1e30]), "fp8e5m2")
    check("e5m2 ties to even, overflows to inf", y.tolist() == [1.0, 57344.0, np.inf, -np.inf])
    check("e8m0 is a power of two", rnd(np.array([3.0, 0.5]), "fp8e8m0").tolist() == [2.0, 0.5])
    keeps_other_seeds(check, G, "fp8_19", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G, ptoc, ptorun, cache, "f8", seeds_right=2, seeds_wrong=2,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
