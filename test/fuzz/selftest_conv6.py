#!/usr/bin/env python3
"""Unit checks of gen_conv6.py (meson test fuzz_conv6_selftest, or alone):

1. its model on hand-computed values, and that seeds drawing no conv6 statement keep their programs;
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with the
   right model, and the deliberately wrong model (gen_conv6.WRONG) is caught on at least one forced seed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_conv6 as G6  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    x = np.arange(1.0, 6.0).reshape(1, 1, 5)  # 1 2 3 4 5
    w = np.array([[[1.0, -1.0]]])
    # padding [1, 0]: windows (0, 1) (1, 2) ..; stride 2: outputs at 0, 2, 4 of the padded row 0 1 2 3 4 5
    check("conv1d: stride 2, left padding 1", G6.conv_ref(x, w, [2], [1, 0], [1], 1, out="fp32").tolist() ==
          [[[-1.0, -1.0, -1.0]]])
    check("conv1d: dilation 2 spans 3 columns", G6.conv_ref(x, w, [1], [0, 0], [2], 1, out="fp32").tolist() ==
          [[[-2.0, -2.0, -2.0]]])
    b = np.array([10.0])
    check("conv1d: bias then relu", G6.conv_ref(x, -w, [1], [0, 0], [1], 1, bias=np.array([-1.5]), relu=True,
                                                out="fp32").tolist() == [[[0.0, 0.0, 0.0, 0.0]]] and
          G6.conv_ref(x, w, [4], [0, 0], [1], 1, bias=b, out="fp32").tolist() == [[[9.0]]])
    x2 = np.arange(16.0).reshape(1, 2, 2, 4)
    w2 = np.ones((2, 1, 1, 1))
    check("conv2d: groups 2 keep the channels apart", np.array_equal(
        G6.conv_ref(x2, w2, [1, 1], [0, 0, 0, 0], [1, 1], 2, out="fp32"), x2))
    xi = np.array([[[1.0, np.inf, 2.0, 3.0, 4.0, np.nan, 5.0]]])
    got = G6.conv_ref(xi, np.array([[[1.0, 1.0]]]), [2], [0, 0], [1], 1, out="fp32")[0, 0]
    # windows (0, 1) (2, 3) (4, 5): the inf and the NaN reach only their own output
    check("conv1d: inf and NaN stay in their windows", got[0] == np.inf and got[1] == 5.0 and np.isnan(got[2]))
    src = np.arange(12.0).reshape(6, 2)
    ix, bt = np.array([[0, 3, -1, 6]]), np.array([[2, 0, 9]])
    # t 0 -> block 0 -> 2 * 2 + 0 = row 4; t 3 -> block 1 -> 0 * 2 + 1 = row 1; -1 -> 0; 6 -> past the table
    check("gather_in_l1: paged rows, rows of 0 outside", G6.gather_ref(src, ix, bt, 2, 1).tolist() ==
          [[8.0], [2.0], [0.0], [0.0]])
    keeps_other_seeds(check, G6, "conv6", range(3000, 3100), 5, 40)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G6, ptoc, ptorun, cache, "c6", seeds_right=2, seeds_wrong=3,
                  wrong=lambda kind: True, right=False)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
