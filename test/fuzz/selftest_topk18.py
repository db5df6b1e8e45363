#!/usr/bin/env python3
"""Unit checks of gen_topk18.py (meson test fuzz_topk18_selftest, or alone):

1. its model on hand examples (ties go to the lower index, a valid length below k pads with -inf and -1),
   and that seeds drawing no topk18 statement keep their programs (gen_topk18 runs after every other hook);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_topk18.WRONG) is caught on at least one seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_topk18 as G  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    x = np.array([[1.0, 3.0, 2.0, 3.0, 0.0, 3.0]])
    v, i = G.sort_valid(x, 6, 4, True)
    check("topk ties go to the lower index", v.tolist() == [[3, 3, 3, 2]] and i.tolist() == [[1, 3, 5, 2]])
    v, i = G.sort_valid(x, 3, 5, False)
    check("a valid length below k pads", v.tolist() == [[1, 2, 3, np.inf, np.inf]] and i.tolist() == [[0, 2, 1, -1, -1]])
    keeps_other_seeds(check, G, "topk18", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G, ptoc, ptorun, cache, "t18", seeds_right=2, seeds_wrong=2,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
