#!/usr/bin/env python3
"""Unit checks of gen_ports19.py (meson test fuzz_ports19_selftest, or alone):

1. its model on PyPTO's documented example (a [2, 2] fp32 view as DT_INT8 is [2, 8] int8, little-endian) and
   by hand (bf16 -> int16 is the upper half of the fp32 bits, int8 -> int32 little-endian), and that seeds
   drawing no ports19 construct keep their programs (gen_ports19 runs after every other hook);
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_ports19.WRONG: bytes reversed) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_ports19 as G  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    # PyPTO's docs/zh/api/operation/pypto-view.md example, first row.
    x = np.array([[0.9405094, 0.20237109]], np.float32).astype(np.float64)
    check("PyPTO's example: fp32 as int8", G.review(x, "fp32", "int8").tolist() == [[57, -59, 112, 63, 94, 58, 79, 62]])
    one = np.array([[1.0, -2.0]])
    check("bf16 as int16", G.review(one, "bf16", "int16").tolist() == [[0x3F80, -16384]])
    b = np.array([[1, 0, 0, 0, -1, -1, -1, 127]], np.float64)
    check("int8 as int32, little-endian", G.review(b, "int8", "int32").tolist() == [[1, 0x7FFFFFFF]])
    check("the wrong model differs", G.review(b, "int8", "int32", wrong=True).tolist() != [[1, 0x7FFFFFFF]])
    keeps_other_seeds(check, G, "ports19", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G, ptoc, ptorun, cache, "p19", seeds_right=2, seeds_wrong=2,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
