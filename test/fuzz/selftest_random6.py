#!/usr/bin/env python3
"""Unit checks of gen_random6.py (meson test fuzz_random6_selftest, or alone):

1. its model on PyPTO's documented example, and that seeds drawing no random6 statement keep their programs
   (gen_random6 runs after every other hook, so nothing is left out);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_random6.WRONG) is caught on at least one seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_random6 as G6  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    u = G6.Random6("uniform", [4, 4], 1234, [0, 1], 1, "fp32").ev({}).a
    check("uniform([4, 4], [1234], [0, 1]) is PyPTO's documented output",
          np.allclose(u[0], [0.1689806, 0.9725481, 0.90036285, 0.16582811], atol=1e-7) and
          np.allclose(u[3], [0.6877538, 0.24809706, 0.95886254, 0.24039495], atol=1e-7))
    n = G6.Random6("normal", [4, 4], 1234, [0, 1], 1, "fp32").ev({}).a
    check("normal([4, 4], [1234], [0, 1]) is within 2e-6 of PyPTO's documented NPU output",
          np.allclose(n[0], [-0.32364845, 1.8577391, 0.39556974, 0.2311697], atol=2e-6))
    check("... its text", G6.Random6("normal", [2, 4], 5, [3, 9], 3, "bf16").text() ==
          "normal([2, 4], [5], [3, 9], [3], bf16)")
    keeps_other_seeds(check, G6, "random6", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G6, ptoc, ptorun, cache, "r6", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
