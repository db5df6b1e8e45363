#!/usr/bin/env python3
"""Unit checks of gen_surface9.py (meson test fuzz_surface9_selftest, or alone):

1. the models by hand: `-x ** 2`, a method chain with a reduction, `@` of int8 to int32; the spellings in the
   spec text (methods, `**`, `@`, `pypto.`); seeds drawing no surface9 construct keep their programs;
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_surface9.WRONG = the construct) is caught."""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_surface9 as G9  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    e = {"dims": {}, "tensors": {"a": np.array([[1.5, 2.0], [0.5, 3.0]]), "q": np.array([[1.0, -2.0]]),
                                 "w": np.array([[3.0], [4.0]])}, "values": {}}
    a = M.Ref("a", "fp32")
    neg = G9.S9(lambda x: f"-{x} ** 2", [a], lambda x: -np.power(x, 2), "fp32")
    check("-a ** 2 is -(a ** 2)", neg.ev(e).a.tolist() == [[-2.25, -4.0], [-0.25, -9.0]] and neg.text() == "-a ** 2")
    s = G9.S9(lambda x: f"{x}.sum(-1, keepdim=True)", [G9.S9(lambda x: f"{x}.sqrt()", [a], np.sqrt, "fp32")],
              lambda x: x.sum(-1, keepdims=True), "fp32")
    v = s.ev(e)
    check("a.sqrt().sum(-1, keepdim=True)", s.text() == "a.sqrt().sum(-1, keepdim=True)" and v.a.shape == (2, 1)
          and abs(v.a[0, 0] - (1.5 ** 0.5 + 2 ** 0.5)) < 1e-6)
    mm = G9.S9(lambda x, y: f"({x} @ {y})", [M.Ref("q", "int8"), M.Ref("w", "int8")], np.matmul, "int32")
    check("q @ w (int8) is int32", mm.ev(e).a.tolist() == [[-5.0]] and mm.text() == "(q @ w)")
    texts = {k: "" for k in G9.KINDS}
    for k in G9.KINDS:
        G9.FORCE = k
        for s in range(1, 30):
            texts[k] += gen.generate(s).spec_text()
        G9.FORCE = None
    check("chain: methods, keyword arguments and pypto. prefixes in the specs",
          ".transpose(1, 0)" in texts["chain"] and "keepdim=True" in texts["chain"] and "pypto." in texts["chain"])
    check("pow: '**' with integer, negative and float exponents, a constant 2 ** (bit - 1)",
          " ** 2" in texts["pow"] and " ** -1" in texts["pow"] and " ** 0.5" in texts["pow"] and
          "= 2 ** (" in texts["pow"])
    check("matmul: '@' of every dtype", " @ " in texts["matmul"] and "int8" in texts["matmul"] and
          "bf16" in texts["matmul"])
    keeps_other_seeds(check, G9, "surface9", range(4000, 4100), 12, 50)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, G9, ptoc, ptorun, cache, "s9", seeds_right=3, seeds_wrong=6)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
