#!/usr/bin/env python3
"""Unit checks of gen_lang.py (meson test fuzz_lang_selftest): its model nodes on small inputs with
hand-computed results (topk/argsort ties, argmax ties, one_hot out of range, arange lengths,
dequantize and scaled_mm rounding order, index_select, a row scatter whose later write wins, local
tensors assembled piece by piece, is_loop_begin/end with a carry, cond), and that the hooks leave
every seed that draws none of them as it was. Needs no ptoc."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen  # noqa: E402
import gen_lang as GL  # noqa: E402
import model as M  # noqa: E402
from selftest_checks import Checks, hooks_after  # noqa: E402

check = Checks()


def env(tensors, dims=None):
    return {"dims": dict(dims or {}), "tensors": {k: np.array(v, np.float64) for k, v in tensors.items()},
            "values": {}}


# topk: the k largest, sorted, ties to the lower index; smallest with largest=false
e = env({"x": [[3, 1, 3, 2], [0, 5, 5, 5]]})
v, i = GL.Sort("topk", M.Ref("x", "int32"), 2, True, "int32").ev_both(e)
check("topk values", np.array_equal(v.a, [[3, 3], [5, 5]]))
check("topk ties: lower index first", np.array_equal(i.a, [[0, 2], [1, 2]]))
v, i = GL.Sort("topk", M.Ref("x", "int32"), 3, False, "int32").ev_both(e)
check("topk largest=false", np.array_equal(v.a, [[1, 2, 3], [0, 5, 5]]) and np.array_equal(i.a, [[1, 3, 0], [0, 1, 2]]))
a = GL.Sort("argsort", M.Ref("x", "int32"), None, True, "int32").ev(e)
check("argsort descending, stable", np.array_equal(a.a, [[0, 2, 3, 1], [1, 2, 3, 0]]))
check("topk text", GL.Sort("topk", M.Ref("x", "fp32"), 2, False, "fp32").text() == "topk(x, 2, -1, largest=false)")

# a tail: 1 valid row of 2; the padding row stays NaN
e = env({"x": [[4, 9, 1], [7, 7, 7]]})
xv = M.View("x", "fp32", [2, 3], [0, 0], [1, 3])
v, i = GL.Sort("topk", xv, 1, True, "fp32").ev_both(e)
check("topk over a tail: valid rows only", v.valid == (1, 1) and v.a[0, 0] == 9 and np.isnan(v.a[1, 0]))

# argmax / argmin: NumPy's first index; keepdim
e = env({"x": [[1, 4, 4], [2, 2, 0]]})
r = GL.ArgExt("argmax", M.Ref("x", "fp32"), -1, True).ev(e)
check("argmax ties: first index, keepdim", np.array_equal(r.a, [[1], [0]]))
r = GL.ArgExt("argmin", M.Ref("x", "fp32"), 0, False).ev(e)
check("argmin over axis 0", np.array_equal(r.a, [0, 1, 1]))

# one_hot: values outside 0..C-1 give zero rows
e = env({"k": [2, -1, 3, 0]})
r = GL.OneHot(M.Ref("k", "int32"), 3).ev(e)
check("one_hot", np.array_equal(r.a, [[0, 0, 1], [0, 0, 0], [0, 0, 0], [1, 0, 0]]))

# arange: ceil((end - start) / step) elements; int32 for integers, fp32 otherwise
r = GL.Arange([5]).ev(env({}))
check("arange(5)", np.array_equal(r.a, [0, 1, 2, 3, 4]) and GL.Arange([5]).dtype == "int32")
r = GL.Arange([-3, 8, 3]).ev(env({}))
check("arange(-3, 8, 3)", np.array_equal(r.a, [-3, 0, 3, 6]))
r = GL.Arange([0.5, 2, 0.5]).ev(env({}))
check("arange fp32", np.array_equal(r.a, [0.5, 1.0, 1.5]) and GL.Arange([0.5, 2, 0.5]).dtype == "fp32")

# dequantize: (fp32(x) + zp) * scale, per column (axis -2) with a rank-1 scale
e = env({"q": [[1, -2], [3, 4]], "s": [0.5, 2.0], "z": [1, 0]})
r = GL.Dequant(M.Ref("q", "int8"), M.Ref("s", "fp32"), M.Ref("z", "fp32"), -2).ev(e)
check("dequantize per column", np.array_equal(r.a, [[1.0, -4.0], [2.0, 8.0]]))
e = env({"q": [[1, -2], [3, 4]], "s": [[0.5], [2.0]]})
r = GL.Dequant(M.Ref("q", "int8"), M.Ref("s", "fp32"), None, -1).ev(e)
check("dequantize per row", np.array_equal(r.a, [[0.5, -1.0], [6.0, 8.0]]))

# scaled_mm: fp32(a @ b) * scale_a (per row) * scale_b (per column)
e = env({"a": [[1, 2], [3, 4]], "b": [[1, 0], [0, 1]], "sa": [1.0, 0.5], "sb": [[2.0, 3.0]]})
r = GL.ScaledMM(M.Ref("a", "int8"), M.Ref("b", "int8"), "fp32", M.Ref("sa", "fp32"), M.Ref("sb", "fp32"),
                False, False).ev(e)
check("scaled_mm", np.array_equal(r.a, [[2.0, 6.0], [3.0, 6.0]]))

# index_select rows (repeats allowed)
e = env({"x": [[1, 2], [3, 4], [5, 6]], "i": [2, 0, 2]})
r = GL.IndexSelect("x", "i", "fp32").ev(e)
check("index_select", np.array_equal(r.a, [[5, 6], [1, 2], [5, 6]]))

# a row scatter in a loop: slot [1, 0, 1]: row 1 holds the last write
t = M.run_program([M.Loop("s", 3, [GL.ScatterRow("c", "slot", "s", M.Slice("src", "fp32", ["s", 0], ["s + 1", 2]))])],
                  {}, {"c": np.zeros((2, 2)), "slot": np.array([1.0, 0, 1]), "src": np.arange(6.0).reshape(3, 2)})
check("scatter: the later write wins", np.array_equal(t["c"], [[2, 3], [4, 5]]))

# a local tensor: two pieces, a gap reads zero, zero-filled again in every iteration
body = [M.Loop("b", 2, [GL.LocalTensor("lt", [1, 4], "fp32"),
                        M.Assemble("lt", [0, 2], GL.VSlice(M.Slice("x", "fp32", ["b", 0], ["b + 1", 4]), [0, 2], [1, 4], "fp32")),
                        M.Assemble("y", ["b", 0], M.Ref("lt", "fp32"))])]
t = M.run_program(body, {}, {"x": np.arange(8.0).reshape(2, 4), "y": np.zeros((2, 4))})
check("local tensor pieces, a zero gap", np.array_equal(t["y"], [[0, 0, 2, 3], [0, 0, 6, 7]]))

# is_loop_begin starts the carry, is_loop_end writes it: c = 2 m0, then c = c / 2 + m
m = M.Slice("x", "fp32", ["b", 0], ["b + 1", 1])
body = [M.Loop("b", "N", [
    GL.RtIf("if", "is_loop_begin(b)", lambda d: d["b"] == 0, [M.Bind("c", M.Bin("*", m, M.Const(2, "fp32"), "fp32"))],
            [M.Bind("c", M.Bin("+", M.Bin("*", M.Ref("c", "fp32"), M.Const(0.5, "fp32"), "fp32"), m, "fp32"))]),
    GL.RtIf("if", "is_loop_end(b)", lambda d: d["b"] + 1 >= d["N"], [M.Assemble("y", [0, 0], M.Ref("c", "fp32"))])],
    carry={"c": M.Full([1, 1], 0, "fp32")})]
t = M.run_program(body, {"N": 3}, {"x": np.array([[4.0], [1.0], [2.0]]), "y": np.zeros((1, 1))})
check("is_loop_begin / is_loop_end with a carry", t["y"][0, 0] == ((8 * 0.5) + 1) * 0.5 + 2)

# cond on the parity of the loop variable
body = [M.Loop("b", 3, [GL.RtIf("cond", "b % 2 == 1", lambda d: d["b"] % 2 == 1,
                                [M.Assemble("y", ["b"], M.Full([1], 1, "fp32"))],
                                [M.Assemble("y", ["b"], M.Full([1], -1, "fp32"))])])]
t = M.run_program(body, {}, {"y": np.zeros(3)})
check("cond per iteration", np.array_equal(t["y"], [-1, 1, -1]))

# The hooks draw from their own stream: with them left out ("lang2"), and for every seed that draws none
# of them, the program is the one the generator made before them; seeds that draw one only add to it.
same, used = True, 0
for s in range(1000, 1080):
    later = hooks_after("cover5")  # gen_math5 and the hooks after it append after the construct
    p, q = gen.generate(s, later), gen.generate(s, ["lang2"] + later)
    if GL.used(p):
        used += 1
        same = same and all(n in p.inputs for n in q.inputs) and all(n in p.outputs for n in q.outputs)
    else:
        same = same and p.spec_text() == q.spec_text()
check(f"hooks keep the other seeds' programs ({used} of 80 seeds use one)", same and used > 10)
check("deterministic", gen.generate(1042).spec_text() == gen.generate(1042).spec_text())

# gen_cover.py's constructs and the model's tolerance for narrow matmuls (selftest_cover.py)
import selftest_cover  # noqa: E402
selftest_cover.run(check)

check.finish()
