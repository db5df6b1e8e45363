#!/usr/bin/env python3
"""Unit checks of the fuzzer itself (meson test fuzz_model_selftest): the NumPy model on small
programs with hand-computed results (tails, broadcasts, reductions over valid rows, unroll gears,
workspace read-modify-write, integer wrap), the generator's determinism and validity invariants,
and the shrinker's bookkeeping. Needs no ptoc."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import Checks  # noqa: E402
import shrink  # noqa: E402

check = Checks()


def run(body, dims, tensors):
    return M.run_program(body, dims, {k: np.array(v, np.float64) for k, v in tensors.items()})


# A dynamic loop of 4-row blocks over 6 rows: the tail block has 2 valid rows; amax over the valid
# rows only, broadcast back; the assemble drops the overhang.
x = np.arange(12.0).reshape(6, 2)
blk = M.Slice("x", "fp32", ["b * 4", 0], ["(b + 1) * 4", 2])
body = [M.Loop("b", "ceil_div(B, 4)", [
    M.Assemble("y", ["b * 4", 0], M.Bin("-", blk, M.Red("amax", blk, 0, True, "fp32"), "fp32")),
    M.Assemble("m", ["b", 0], M.Red("sum", blk, 0, True, "fp32"))])]
t = run(body, {"B": 6}, {"x": x, "y": np.zeros((6, 2)), "m": np.zeros((2, 2))})
check("tail block: x - amax over valid rows", np.array_equal(t["y"], np.vstack([x[:4] - x[3], x[4:] - x[5]])))
check("tail block: sum over valid rows only", np.array_equal(t["m"], np.array([x[:4].sum(0), x[4:].sum(0)])))

# Unroll gears [4] over 7 iterations: gears 4, 1, 1, 1; every row is written once.
gblk = M.Slice("x", "fp32", ["i", 0], ["i + k", 2])
body = [M.Loop("i", "B", [M.Assemble("y", ["i", 0], M.Bin("*", gblk, M.Const(2, "fp32"), "fp32"))],
               unroll=[4], factor="k")]
x7 = np.arange(14.0).reshape(7, 2)
t = run(body, {"B": 7}, {"x": x7, "y": np.zeros((7, 2))})
check("unroll gears cover the trip count", np.array_equal(t["y"], 2 * x7))

# B2's read-modify-write twice in one root function: y = 1.5 x.
ws = M.Slice("ws", "fp32", [0, 0], [2, 2])
upd = M.Assemble("ws", [0, 0], M.Bin("+", M.Bin("*", ws, M.Const(0.5, "fp32"), "fp32"), M.Ref("x", "fp32"), "fp32"))
x2 = np.array([[1.0, 2.0], [3.0, 4.0]])
t = run([upd, upd, M.Assemble("y", [0, 0], M.Bin("+", ws, M.Const(0, "fp32"), "fp32"))], {},
        {"x": x2, "ws": np.zeros((2, 2)), "y": np.zeros((2, 2))})
check("workspace read-modify-write in program order", np.array_equal(t["y"], 1.5 * x2))

# Integer wrap and truncating division; fp16 rounding after every op.
xi = np.array([[100.0, -7.0]])
t = run([M.Assemble("y", [0, 0], M.Bin("*", M.Ref("x", "int8"), M.Const(3, "int8"), "int8")),
         M.Assemble("z", [0, 0], M.Bin("/", M.Ref("x", "int8"), M.Const(2, "int8"), "int8"))], {},
        {"x": xi, "y": np.zeros((1, 2)), "z": np.zeros((1, 2))})
check("int8 multiply wraps", t["y"].tolist() == [[44.0, -21.0]])
check("integer / truncates toward zero", t["z"].tolist() == [[50.0, -3.0]])
xh = np.array([[2048.0]])
t = run([M.Assemble("y", [0, 0], M.Bin("+", M.Ref("x", "fp16"), M.Const(1, "fp16"), "fp16"))], {},
        {"x": xh, "y": np.zeros((1, 1))})
check("fp16 result rounded to nearest even", t["y"][0, 0] == 2048.0)

# A view with a narrower valid width: padding never reaches the output.
v = M.View("x", "fp32", [2, 4], [0, 0], [2, 3])
t = run([M.Assemble("y", [0, 0], M.Bin("+", v, M.Const(1, "fp32"), "fp32"))], {},
        {"x": np.ones((2, 4)), "y": np.zeros((2, 4))})
check("view valid=: only the valid columns are written", t["y"].tolist() == [[2, 2, 2, 0], [2, 2, 2, 0]])

# Matmul over the valid rows of a tail block, trans_b.
a = M.Slice("a", "fp16", [0, 0], [4, 3])
t = run([M.Assemble("y", [0, 0], M.Matmul(a, M.Ref("w", "fp16"), "fp32", trans_b=True))], {},
        {"a": np.ones((2, 3)), "w": np.arange(6.0).reshape(2, 3), "y": np.zeros((2, 2))})
check("matmul with trans_b and valid rows", t["y"].tolist() == [[3, 12], [3, 12]])

# The generator: same seed, same bytes; every program's model runs; names are unique.
a1, a2 = gen.generate(7).spec_text(), gen.generate(7).spec_text()
check("generator is deterministic", a1 == a2)
check("different seeds differ", gen.generate(8).spec_text() != a1)
bad = []
for seed in range(1, 120):
    prog = gen.generate(seed)
    rng = np.random.default_rng(seed)
    vals = {}
    for n, ty in prog.inputs.items():
        vals[n], _ = M.__dict__["np"].zeros(1), None
        from numerics import make_input
        vals[n] = make_input(rng, ty["dtype"], prog.shape_of(ty), prog.kinds.get(n, "normal"))[0]
    # An input drawn with inf / NaN (gen_conv6's "nonfinite" kind) may carry a NaN to an output: that is the
    # value, not padding, so only programs without such inputs are checked for NaN.
    # The same holds for gen_fp8_19's inputs: its boundary values ("fp8edges") and its random fp8 codes
    # include NaN by design.
    nonfinite = any(k in ("nonfinite", "fp8edges") for k in prog.kinds.values()) or any(
        str(ty["dtype"]).startswith("fp8") for ty in prog.inputs.values())
    try:
        out = prog.expected(vals)
        for o, arr in out.items():
            if not nonfinite and np.isnan(arr).any():
                bad.append(f"seed {seed}: NaN (padding) in output {o}")
    except M.ModelError as e:
        bad.append(f"seed {seed}: {e}")
    except Exception as e:  # noqa: BLE001
        bad.append(f"seed {seed}: {type(e).__name__}: {e}")
check(f"119 generated programs run in the model without padding in outputs ({bad[:3]})", not bad)

# The shrinker's prune: an output nothing writes any more is dropped, and so is an unused input.
prog = gen.generate(3)
small = prog.clone()
small.body = small.body[:1]
shrink.prune(small)
text = small.spec_text()
check("prune keeps only referenced inputs", all(n in text.split("body:")[1] for n in small.inputs))

# A name declared twice is a generator bug, never a silently replaced declaration (seed 1164: catalog5 and
# cover5 both named their inputs c5in1, so the spec's c5in1 no longer matched the values the model used).
d = gen.Declarations("input", {"a": {"dtype": "fp32", "shape": [4]}})
try:
    d["a"] = {"dtype": "fp16", "shape": [8]}
    refused = False
except gen.GeneratorBug as e:
    refused = "input 'a' declared twice" in str(e)
check("Declarations refuses a name declared twice", refused and d["a"]["shape"] == [4])
try:
    d.update({"a": {"dtype": "fp16", "shape": [8]}})
    refused = False
except gen.GeneratorBug:
    refused = True
check("Declarations.update refuses a name declared twice", refused and d["a"]["shape"] == [4])
check("Declarations survive Program.clone", gen.generate(3).clone().spec_text() == gen.generate(3).spec_text())
try:
    p1164 = gen.generate(1164)
    text1164 = p1164.spec_text()
    ok1164 = all(len(set(a) & set(b)) == 0 for a, b in ((p1164.inputs, p1164.outputs), (p1164.inputs, p1164.tensors)))
except gen.GeneratorBug as e:
    ok1164, text1164 = False, str(e)
check(f"seed 1164 declares each tensor once ({text1164[:80] if not ok1164 else ''})", ok1164)
check.finish()
