#!/usr/bin/env python3
"""Unit checks of gen_loopcond.py (meson test fuzz_loopcond_selftest, or alone):

1. the model by hand: a loop over a true condition runs its body once with the variable 0, over a false one
   never, and names bound in the body end with it; the spellings in the spec text (`count: COND`,
   `range: [COND]`, conditions on constants, static- and dynamic-loop variables, a dynamic dim and an int32
   element); seeds drawing no loopcond construct keep their programs;
2. with --ptoc and --ptorun: each construct, forced, passes ptoc/ptorun --check and the NumPy comparison with
   the right model, and the deliberately wrong model (gen_loopcond.WRONG = the construct: the condition
   negated) is caught."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_loopcond as GL  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import forced_models, keeps_other_seeds, selftest_main  # noqa: E402


def run(check):
    def env():
        return {"dims": {"b": 1}, "tensors": {"x": np.array([[1.0, 2.0], [3.0, 4.0]]), "y": np.zeros((2, 2))},
                "values": {}}
    row = M.Assemble("y", ["b + i", 0], M.Bin("*", M.View("x", "fp32", [1, 2], ["b + i", 0], None),
                                             M.Const(2, "fp32"), "fp32"))
    e = env()
    GL.LoopCond("i", "b == 1", lambda d: d["b"] == 1, [row]).run(e)
    check("a true condition: the body once, with i = 0", e["tensors"]["y"].tolist() == [[0, 0], [6.0, 8.0]]
          and "i" not in e["dims"])
    e = env()
    GL.LoopCond("i", "b == 0", lambda d: d["b"] == 0, [row]).run(e)
    check("a false condition: never", e["tensors"]["y"].tolist() == [[0, 0], [0, 0]])
    e = env()
    GL.LoopCond("i", "true", lambda d: True, [M.Bind("v", M.Ref("x", "fp32"))]).run(e)
    check("a name bound in the body ends with it", "v" not in e["values"])
    lc = GL.LoopCond("i", "b > 0", lambda d: True, [], key="range", name="L")
    check("range: [COND] and name:", lc.emit() == {"loop": {"var": "i", "range": ["b > 0"], "name": "L"}, "body": []})
    texts = {k: "" for k in GL.KINDS}
    for k in GL.KINDS:
        GL.FORCE = k
        for s in range(1, 30):
            texts[k] += gen.generate(s).spec_text()
        GL.FORCE = None
    check("static: count and range over constants and a static loop's variable",
          "count: lcc" in texts["static"] and "range: [" in texts["static"] and "kind: static" in texts["static"]
          and "lcs %" in texts["static"])
    check("dyn: conditions on the dynamic loop's variable and dim", "lcb " in texts["dyn"] and "LCB " in texts["dyn"])
    check("elem: a condition on an int32 element", "f[lcb]" in texts["elem"] and "values: [0, 3]" in texts["elem"])
    keeps_other_seeds(check, GL, "loopcond", range(4000, 4100), 3, 30)


def wrong_models(check, ptoc, ptorun, cache):
    forced_models(check, GL, ptoc, ptorun, cache, "lc", seeds_right=3, seeds_wrong=8)


if __name__ == "__main__":
    selftest_main(run, wrong_models)
