"""The fuzzer's hook for the language the fuzzer did not reach yet (issue 13: every construct), each with
conformance specs against NumPy: one construct at the end of the body, with its own inputs (`v5in...`) and
outputs (`v5out...`), drawn from its own stream (`cover5{seed}`), so the rest of every seed's program is
unchanged (selftest_cover5.py checks it). gen.py calls program_hook() on the finished program.

- `const_list`: compile-time constant lists (`v5l = [2, 64]`, read whole as a `vec_tile`, by entry and by a
  negative index) and float constants (`v5e = 0.25`, `v5h = 1.0 / 32`, `v5f = -v5e + 0.5 + v5e`) as scalar
  operands and slice bounds (test/conformance/specs/const4_lists_floats.yaml).
- `sym_cube_tile`: `cube_tile` entries written with the unroll factor (`m: [v5g, v5g]`,
  `["min(v5g * 16, 32)", ...]`, k from a constant list) in an unroll-gear loop over a dynamic dim
  (elaborate_cube_tile.cpp; const4_split_k_int32.yaml's second half).
- `split_k_int32`: int8 x int8 -> int32 matmuls under `split_k: true` (K parts added in GM in int32), K with a
  tail, operands up to 127 so that sums pass 2^24 (where fp32 partial sums would round), an NZ weight.
- `outer_loop_end`: an outer dynamic loop's `is_loop_end(i)` (and `is_loop_begin(i)`) deciding statements
  inside an inner loop, with and without a carried value through both loops (ctrl4_path_nested.yaml).

FORCE (fuzz.py --cover NAME) makes every seed take that construct. WRONG (selftest only) names a construct whose
model is deliberately broken, to prove that the fuzzer's comparison catches it."""
import random

import numpy as np

import model as M
from gen_lang import RtIf
from model import Stmt, Value, dim_eval, rnd
import hook_stream  # noqa: E402

KINDS = ("const_list", "sym_cube_tile", "split_k_int32", "outer_loop_end")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off (selftest_cover5.py proves the comparison catches it)
PROB = 0.2


def _const_eval(expr, dims):
    return eval(str(expr), {"__builtins__": {}}, dict(dims, min=min, max=max))


class ListBind(Stmt):
    """`NAME = [e0, e1, ...]`, a compile-time constant list: the model keeps it with the dims, so slice bounds,
    tile entries and scalars read it by index."""

    def __init__(self, name, items):
        self.name, self.items_ = name, list(items)

    def emit(self):
        return f"{self.name} = [{', '.join(str(x) for x in self.items_)}]"

    def run(self, env):
        env["dims"][self.name] = [_const_eval(x, env["dims"]) for x in self.items_]


class FloatBind(Stmt):
    """`NAME = EXPR`, a compile-time float constant (evaluated in double, as the front end does)."""

    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def emit(self):
        return f"{self.name} = {self.expr}"

    def run(self, env):
        env["dims"][self.name] = float(_const_eval(self.expr, env["dims"]))


class NamedScalar(M.Const):
    """A scalar operand written as a constant expression (`v5f`, `v5l[-1]`): Bin reads `.value` after ev()."""

    def __init__(self, text, dtype, off=0.0):
        super().__init__(0, dtype)
        self.expr, self.off = text, off

    def text(self):
        return self.expr

    def ev(self, env):
        self.value = float(_const_eval(self.expr, env["dims"])) + self.off
        return None


class OffMatmul(M.Matmul):
    """A matmul whose model is off by `off` (selftest only)."""

    def __init__(self, *args, off=0.0, **kw):
        super().__init__(*args, **kw)
        self.off = off

    def ev(self, env):
        v = super().ev(env)
        return Value(v.a + self.off, v.valid) if self.off else v


def _matmul(a, b, dtype, off=0.0):
    # the plain node unless off: model_tolerance.py knows accumulating nodes by their class name
    return OffMatmul(a, b, dtype, off=off) if off else M.Matmul(a, b, dtype)


# ------------------------------------------------------------------------------------------- constructs
def _inp(st, prog, shape, dt, kind=None, fmt=None):
    st["n"] += 1
    n = f"v5in{st['n']}"
    prog.inputs[n] = {"dtype": dt, "shape": list(shape)}
    if fmt:
        prog.inputs[n]["format"] = fmt
    prog.kinds[n] = kind or ("normal" if dt in FLOAT else "small")
    return n


def _out(st, prog, shape, dt):
    st["n"] += 1
    n = f"v5out{st['n']}"
    prog.outputs[n] = {"dtype": dt, "shape": list(shape)}
    return n


def c_const_list(r, prog, st, dt):
    body = prog.body
    D = r.choice([16, 32, 64])
    R = r.randint(2, 8)
    a = r.randint(1, R)
    W = r.randint(1, R)
    body.append(ListBind("v5l", [a, D]))
    body.append(ListBind("v5n", [r.randint(1, 4), W]))
    body.append(FloatBind("v5e", r.choice(["0.25", "1e-3", "0.5", "-0.125"])))
    body.append(FloatBind("v5h", f"1.0 / {D}"))
    body.append(FloatBind("v5f", r.choice(["-v5e + 0.5 + v5e", "v5e * 2 + 1.5", "v5h * v5l[-1]"])))
    wrong = WRONG == "const_list"
    x = _inp(st, prog, [R, D], dt)
    body.append(M.Raw({"vec_tile": r.choice(["v5l", ["v5l[0]", "v5l[-1]"], ["v5l[0]", "v5l[1] // 2"]])}))
    # slice bounds from a list entry (negative index), scalars from the float constants
    o = _out(st, prog, [W, D], dt)
    e = M.Bin("*", M.Slice(x, dt, [0, 0], ["v5n[-1]", D]), NamedScalar("v5f", dt, 0.5 if wrong else 0.0), dt)
    body.append(M.Assemble(o, [0, 0], M.Bin("-", e, NamedScalar("v5e", dt), dt)))
    if r.random() < 0.6:
        # a mean written as sum * v5h (PyPTO's `inv_h = 1.0 / H`), the whole row in the tile
        o2 = _out(st, prog, [R, 1], dt)
        body.append(M.Raw({"vec_tile": ["v5l[0]", "v5l[1]"]}))
        sq = M.Bin("*", M.Ref(x, dt), M.Ref(x, dt), dt)
        body.append(M.Assemble(o2, [0, 0], M.Bin("*", M.Red("sum", sq, -1, True, dt), NamedScalar("v5h", dt), dt)))
    if r.random() < 0.5:
        # an int list entry as a scalar operand
        o3 = _out(st, prog, [R, D], dt)
        body.append(M.Raw({"vec_tile": ["v5n[0]", "v5l[-1]"]}))
        body.append(M.Assemble(o3, [0, 0], M.Bin("+", M.Ref(x, dt), NamedScalar("v5n[0]", dt), dt)))


def c_sym_cube_tile(r, prog, st, dt):
    body = prog.body
    K = r.choice([32, 48, 64, 128])
    N = r.choice([16, 32, 48, 64])
    T = r.randint(3, 40)
    prog.dims["V5T"] = {"dynamic": True, "max": 64}
    prog.dimval["V5T"] = T
    ind = r.choice(["fp16", "bf16"])
    odt = r.choice(["fp32", "fp32", ind])
    x = _inp(st, prog, ["V5T", K], ind)
    w = _inp(st, prog, [K, N], ind)
    o = _out(st, prog, ["V5T", N], odt)
    unroll = sorted(r.sample([2, 4, 8, 16], r.randint(1, 3)), reverse=True)
    m = r.choice([["v5g", "v5g"], ["min(v5g * 16, 32)", "min(v5g * 16, 32)"], ["max(v5g, 16)", "max(v5g, 16)"]])
    k0 = r.choice([16, 32])
    inner = []
    if r.random() < 0.5:
        body.append(ListBind("v5k", [k0, k0 * r.choice([1, 2, 4])]))
        k = ["v5k[0]", "v5k[1]"]
    else:
        k = [f"min(v5g * 16, {k0})", f"min(v5g * 16, {k0 * 2})"]
    n0 = r.choice([16, 32])
    inner.append(M.Raw({"cube_tile": {"m": m, "k": k, "n": [n0, n0 * r.choice([1, 2])]}}))
    off = 0.5 if WRONG == "sym_cube_tile" else 0.0
    mm = _matmul(M.Slice(x, ind, ["v5b", 0], ["v5b + v5g", K]), M.Ref(w, ind), odt, off)
    inner.append(M.Assemble(o, ["v5b", 0], mm))
    body.append(M.Loop("v5b", "V5T", inner, unroll=unroll, factor="v5g"))


def c_split_k_int32(r, prog, st, dt):
    body = prog.body
    Mr = r.randint(1, 40)
    K = r.choice([96, 300, 520, 1100, 1800])
    N = r.choice([16, 24, 40, 72])
    big = r.random() < 0.5  # operands in [100, 127]: sums of 1M to 29M, past 2^24 for long K
    kind = "range:100:127" if big else "range:-128:127"
    a = _inp(st, prog, [Mr, K], "int8", kind=kind)
    nz = r.random() < 0.4
    b = _inp(st, prog, [K, N], "int8", kind=kind, fmt="NZ" if nz else None)
    o = _out(st, prog, [Mr, N], "int32")
    m0, k0, n0 = r.choice([16, 32]), r.choice([32, 64, 128]), r.choice([16, 32])
    body.append(M.Raw({"cube_tile": {"m": [m0, m0 * r.choice([1, 2])], "k": [k0, k0 * r.choice([1, 2, 4])],
                                     "n": [n0, n0 * r.choice([1, 2])], "split_k": True}}))
    off = 1.0 if WRONG == "split_k_int32" else 0.0
    body.append(M.Assemble(o, [0, 0], _matmul(M.Ref(a, "int8"), M.Ref(b, "int8"), "int32", off)))


def c_outer_loop_end(r, prog, st, dt):
    body = prog.body
    D = r.choice([16, 32, 64])
    n_i = r.randint(2, 6)
    prog.dims["V5I"] = {"dynamic": True, "max": 8}
    prog.dimval["V5I"] = n_i
    J = r.randint(1, 3)
    x = _inp(st, prog, ["V5I", D], dt)
    y = _inp(st, prog, [J, D], dt)
    wrong = WRONG == "outer_loop_end"
    # wrong: the model reads is_loop_end(i) as is_loop_begin(i)
    end = (lambda d: d["v5i"] == 0) if wrong else (lambda d: d["v5i"] == dim_eval("V5I", d) - 1)
    begin = lambda d: d["v5i"] == 0  # noqa: E731
    xi = M.Slice(x, dt, ["v5i", 0], ["v5i + 1", D])
    yj = M.Slice(y, dt, ["v5j", 0], ["v5j + 1", D])
    inner_kind = r.choice(["static", "dynamic"])
    body.append(M.Raw({"vec_tile": [1, D]}))
    if r.random() < 0.5:
        # a write per (i, j) chosen by the outer loop's position
        o = _out(st, prog, ["V5I", J * D], dt)
        then = [M.Assemble(o, ["v5i", f"v5j * {D}"], M.Bin("+", M.Bin("*", xi, M.Const(2, dt), dt), yj, dt))]
        els = [M.Assemble(o, ["v5i", f"v5j * {D}"], M.Bin("-", xi, yj, dt))]
        inner = [RtIf("if", "is_loop_end(v5i)", end, then, els)]
        if r.random() < 0.5:
            o2 = _out(st, prog, ["V5I", J * D], dt)
            inner.append(M.Assemble(o2, ["v5i", f"v5j * {D}"], M.Bin("*", yj, M.Const(0.5, dt), dt)))
            inner.append(RtIf("if", "is_loop_begin(v5i)", begin,
                              [M.Assemble(o2, ["v5i", f"v5j * {D}"], M.Bin("+", xi, M.Const(1, dt), dt))]))
        body.append(M.Loop("v5i", "V5I", [M.Loop("v5j", J, inner, kind=inner_kind)]))
    else:
        # a value carried through both loops, changed in the inner body on the outer loop's last trip
        o = _out(st, prog, [1, D], dt)
        acc = "v5acc"
        then = [M.Bind(acc, M.Bin("-", M.Ref(acc, dt), M.Const(1, dt), dt))]
        inner = [M.Bind(acc, M.Bin("+", M.Bin("*", M.Ref(acc, dt), M.Const(0.5, dt), dt),
                                   M.Bin("*", xi, yj, dt), dt)),
                 RtIf("if", "is_loop_end(v5i)", end, then)]
        inner_loop = M.Loop("v5j", J, inner, kind=inner_kind, carry={acc: M.Ref(acc, dt)})
        body.append(M.Loop("v5i", "V5I", [inner_loop], carry={acc: M.Full([1, D], 0.0, dt)}))
        body.append(M.Assemble(o, [0, 0], M.Ref(acc, dt)))


CONSTRUCTS = {"const_list": c_const_list, "sym_cube_tile": c_sym_cube_tile, "split_k_int32": c_split_k_int32,
              "outer_loop_end": c_outer_loop_end}


def program_hook(g, prog):
    """With probability PROB (its own stream): one construct at the end of the body."""
    drawn = hook_stream.draw(g, "cover5", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    dt = r.choice(FLOAT)
    st = {"n": 0}
    CONSTRUCTS[kind](r, prog, st, dt)
    prog.cover5 = [kind]


def used(prog):
    return list(getattr(prog, "cover5", None) or [])
