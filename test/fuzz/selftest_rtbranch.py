#!/usr/bin/env python3
"""Unit checks of gen_rtbranch.py (meson test fuzz_rtbranch_selftest, or alone):

1. its model on a small input with a hand-computed result (the name bound in both branches is read after
   them, the tail block's column sum sees only its valid rows), and that seeds drawing none of its constructs
   keep their programs (needs no ptoc; no hook runs after it);
2. with --ptoc and --ptorun: every kind, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_rtbranch.WRONG: the other branch) is caught on
   one of its forced seeds."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_rtbranch as G  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    # 3 rows in blocks of 2 (the second block a 1-row tail); flags [1, 0, 5]: block 0 doubles, block 1 adds 1
    x = np.arange(6, dtype=np.float64).reshape(3, 2)
    t = {"rbx": x, "rbf": np.array([1.0, 0.0, 5.0]), "rbout": np.zeros((3, 2))}
    xb = M.Ref("rbxb", "fp32")
    body = [M.Bind("rbxb", M.View("rbx", "fp32", [2, 2], ["rbb * 2", 0], None)),
            G.EnvIf("cond", "rbf[rbb * 2] > 0", lambda e: G._flag(e, 2) > 0,
                    [M.Bind("rbacc", M.Bin("*", xb, M.Const(2, "fp32"), "fp32"))],
                    [M.Bind("rbacc", M.Bin("+", xb, M.Const(1, "fp32"), "fp32"))])]
    acc = M.Ref("rbacc", "fp32")
    body.append(M.Assemble("rbout", ["rbb * 2", 0], M.Bin("+", acc, M.Red("sum", acc, 0, True, "fp32"), "fp32")))
    M.run_program([M.Loop("rbb", "ceil_div(3, 2)", body)], {}, t)
    # block 0: acc = [[0, 2], [4, 6]], column sums [4, 8]; block 1 (flag of row 2 is 5 > 0): acc = [[8, 10]]
    check("both-branch name read after the branch, tail column sum of its valid row",
          t["rbout"].tolist() == [[4, 10], [8, 14], [16, 20]])
    check("the condition's text reads the flag", body[1].emit()["cond"] == "rbf[rbb * 2] > 0")

    keeps_other_seeds(check, G, "rtbranch", range(2000, 2100), 1, 20)


def wrong_models(check, ptoc, ptorun, cache):
    """Each kind forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G, ptoc, ptorun, cache, "rb", seeds_right=2, seeds_wrong=6)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
