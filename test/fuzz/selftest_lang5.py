#!/usr/bin/env python3
"""Unit checks of gen_lang5.py (meson test fuzz_lang5_selftest, or alone):

1. its models on small inputs with hand-computed results, and that seeds drawing none of its constructs keep
   their programs (needs no ptoc);
2. with --ptoc and --ptorun: every construct, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_lang5.WRONG) is caught on one of its forced
   seeds."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_lang5 as G5  # noqa: E402
import model as M  # noqa: E402
from gen_lang import RtIf  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    # the model's gear schedule: 5 iterations in gears [2, 1] start at 0, 2, 4; `j == L5N - 1` holds only for
    # the gear-1 instance at 4, `j == 0` only for the first
    seen = []
    body = [RtIf("if", "l5j == 0", lambda d: d["l5j"] == 0, [M.Raw({})], None),
            RtIf("cond", "l5j == L5N - 1", lambda d: d["l5j"] == M.dim_eval("L5N", d) - 1, [M.Raw({})], None)]
    for s in body:
        s.then = [_Probe(seen, s.cond)]
    M.run_program([M.Loop("l5j", "L5N", body, unroll=[2], factor="l5k")], {"L5N": 5}, {})
    check("gears [2, 1] over 5: j == 0 at 0, j == L5N - 1 at the instance that starts at 4",
          seen == [("l5j == 0", 0, 2), ("l5j == L5N - 1", 4, 1)])
    seen.clear()
    M.run_program([M.Loop("l5j", "L5N", body, unroll=[2], factor="l5k")], {"L5N": 4}, {})
    check("... over 4 (two gear-2 instances) no instance starts at the last iteration",
          seen == [("l5j == 0", 0, 2)])
    # one_hot of int64 classes: outside 0..C-1 and past int32 give zero rows; the wrong model wraps 2^32 + 1
    e = {"dims": {}, "tensors": {"c": np.array([2.0, -1, 2 ** 32 + 1, 7])}, "values": {}}
    right = G5.OneHot(M.Ref("c", "int64"), 3).ev(e).a
    check("one_hot(int64 classes, 3)", right.tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    check("... the wrong model differs", not np.array_equal(G5.WrongOneHot(M.Ref("c", "int64"), 3).ev(e).a, right))

    keeps_other_seeds(check, G5, "lang5", range(2000, 2100), 5, 30)


class _Probe(M.Stmt):
    def __init__(self, seen, cond):
        self.seen, self.cond = seen, cond

    def run(self, env):
        self.seen.append((self.cond, env["dims"]["l5j"], env["dims"]["l5k"]))


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G5, ptoc, ptorun, cache, "l5", seeds_right=2, seeds_wrong=6)

if __name__ == "__main__":
    selftest_main(run, wrong_models)
