#!/usr/bin/env python3
"""Unit checks of gen_indexer7.py (meson test fuzz_indexer7_selftest, or alone):

1. its model on a hand example (ties across tiles go to the lower index), and that seeds drawing no
   indexer7 statement keep their programs (gen_indexer7 runs after every other hook);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_indexer7.WRONG) is caught on at least one seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_indexer7 as G7  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    x = np.array([[1.0, 3.0, 2.0, 3.0, 0.0, 3.0]])
    env = {"values": {"x": M.Value(x, [1, 6])}, "tensors": {}, "dims": {}}
    v, i = G7.TopkSplit(M.Ref("x", "fp32"), 4, 1, True, "fp32").ev_both(env)
    check("topk ties go to the lower index", v.a.tolist() == [[3, 3, 3, 2]] and i.a.tolist() == [[1, 3, 5, 2]])
    v, i = G7.TopkSplit(M.Ref("x", "fp32"), 2, 1, False, "fp32").ev_both(env)
    check("... smallest", v.a.tolist() == [[0, 1]] and i.a.tolist() == [[4, 0]])
    check("... its text", G7.TopkSplit(M.Ref("x", "fp32"), 2, 0, False, "fp32").text() == "topk(x, 2, 0, largest=false)")
    keeps_other_seeds(check, G7, "indexer7", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G7, ptoc, ptorun, cache, "i7", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
