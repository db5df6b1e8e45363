#!/usr/bin/env python3
"""Self-test of gen_cover5.py (meson test `fuzz_cover5_selftest`):
1. its models by hand (constant lists and float constants, gear-split matmuls, int32 sums past 2^24, an outer
   loop's is_loop_end inside an inner loop), and that the hook leaves the other seeds' programs alone;
2. with --ptoc and --ptorun: every construct, forced, passes through ptoc/ptorun --check and the NumPy comparison
   with the right model, and each deliberately wrong model (gen_cover5.WRONG) is caught: at least one of its
   forced seeds is no longer a pass. A construct whose wrong model went unnoticed would be one the fuzzer cannot
   find a miscompile in."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_cover5 as G5  # noqa: E402
import model as M  # noqa: E402
from gen_lang import RtIf  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    # constant lists and float constants: bound in order, read by index (also negative) and as scalars
    body = [G5.ListBind("c5l", [2, 4]), G5.ListBind("c5n", [1, "c5l[0] + 1"]), G5.FloatBind("c5e", "0.25"),
            G5.FloatBind("c5h", "1.0 / 4"), G5.FloatBind("c5f", "-c5e + 0.5 + c5e"),
            M.Assemble("o", [0, 0], M.Bin("-", M.Bin("*", M.Slice("x", "fp32", [0, 0], ["c5n[-1]", 4]),
                                                     G5.NamedScalar("c5f", "fp32"), "fp32"),
                                          G5.NamedScalar("c5l[0] * c5h", "fp32"), "fp32"))]
    x = np.arange(16.0).reshape(4, 4)
    t = M.run_program(body, {}, {"x": x, "o": np.zeros((3, 4))})
    check("c5n[-1] = c5l[0] + 1 = 3 rows, * c5f (0.5) - c5l[0] * c5h (0.5)", np.array_equal(t["o"], x[:3] * 0.5 - 0.5))
    check("... the list binds as text", body[1].emit() == "c5n = [1, c5l[0] + 1]")
    check("... a scalar prints its expression", G5.NamedScalar("c5n[-1]", "fp16").text() == "c5n[-1]")

    # a matmul per unroll gear (7 rows, gears [4, 2]: 4 + 2 + 1) is the whole matmul
    a, b = np.arange(14.0).reshape(7, 2) % 5, np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]])
    loop = M.Loop("c5b", "C5T", [M.Assemble("o", ["c5b", 0], G5._matmul(M.Slice("a", "fp32", ["c5b", 0],
                                                                                ["c5b + c5g", 2]),
                                                                        M.Ref("b", "fp32"), "fp32"))],
                  unroll=[4, 2], factor="c5g")
    t = M.run_program([loop], {"C5T": 7}, {"a": a, "b": b, "o": np.zeros((7, 3))})
    check("matmul per gear over 7 rows = a @ b", np.array_equal(t["o"], a @ b))
    check("... the plain node (model_tolerance.py knows it by name)",
          type(loop.body[0].expr).__name__ == "Matmul" and type(G5._matmul(None, None, "fp32", 1.0)).__name__ ==
          "OffMatmul")

    # int8 x int8 -> int32: exact past 2^24 (127 * 127 * 1800 = 29 032 200), where fp32 would round
    a8, b8 = np.full((1, 1800), 127.0), np.full((1800, 1), 127.0)
    a8[0, 0] = 126
    t = M.run_program([M.Assemble("o", [0, 0], G5._matmul(M.Ref("a", "int8"), M.Ref("b", "int8"), "int32"))], {},
                      {"a": a8, "b": b8, "o": np.zeros((1, 1))})
    check("int32 matmul sum 29 032 073 exactly", t["o"][0, 0] == 127 * 127 * 1799 + 126 * 127 and
          float(np.float32(t["o"][0, 0])) != t["o"][0, 0])

    # an outer loop's is_loop_end inside an inner loop: only the outer loop's last trip takes it
    o = np.zeros((3, 2))
    inner = [RtIf("if", "is_loop_end(c5i)", lambda d: d["c5i"] == M.dim_eval("C5I", d) - 1,
                  [M.Assemble("o", ["c5i", "c5j"], M.Full([1, 1], 5.0, "fp32"))],
                  [M.Assemble("o", ["c5i", "c5j"], M.Full([1, 1], 1.0, "fp32"))])]
    t = M.run_program([M.Loop("c5i", "C5I", [M.Loop("c5j", 2, inner, kind="static")])], {"C5I": 3}, {"o": o})
    check("is_loop_end(c5i) in the inner loop: the last row 5, the others 1",
          np.array_equal(t["o"], [[1, 1], [1, 1], [5, 5]]))

    # the hook draws from its own stream: a seed that draws none generates what it did before, and one that
    # draws a construct keeps the statements before it
    keeps_other_seeds(check, G5, "cover5", range(3000, 3100), 8, 35)


def wrong_models(check, ptoc, ptorun, cache):
    """Each construct forced: the right model passes, the wrong one is caught on at least one seed."""
    forced_models(check, G5, ptoc, ptorun, cache, "cv5", seeds_right=2, seeds_wrong=4)

if __name__ == "__main__":
    selftest_main(run, wrong_models)
