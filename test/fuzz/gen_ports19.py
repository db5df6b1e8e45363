"""The fuzzer's hook for the PyPTO operators real models use (issue 13, round 19): `view(x, dtype=DT)`,
PyPTO's reinterpreting view (specs/README.md, "view(x, dtype=)"): one statement group at the end of the
body with its own inputs (`p19in...`) and outputs (`p19out...`), drawn from its own stream (`ports19{seed}`,
after every other hook), so the rest of every seed's program is unchanged. Per seed, with probability PROB,
one of:

- `widen`: a rank-2 input of fp32 / fp16 / bf16 / int32 / int16 (or `x + x`) read as a smaller integer
  dtype (int8 / uint8 / int16), the vec_tile cutting both axes with tails;
- `narrow`: an int8 / uint8 / int16 input read as int32 / int16, the tile's last entry a multiple of the
  size ratio (any multiple, tails on both axes);
- `trip`: a float input read as int8 and back as its own dtype (the bits unchanged: no NaN payloads);
- `window`: a column window of an int8 cache row at a multiple of 4 read as int32 (the scale bytes of
  deepseek's sparse-attention port);
- `concat0`: `concat([a, b])` with dim left out (PyPTO's default 0), rank 2 or 3;
- `varaxes`: `var(x, [axes])` / `var(x)` (all axes) of an fp32 rank-2 / rank-3 input, `unbiased=False` /
  `True` or `correction=`, keepdim or not, the tile cutting the first axis.

The models: NumPy's .view(dtype) of each row's little-endian bytes, np.concatenate(axis=0), np.var(ddof=) in
float64 (ptoc's fp32 steps are inside the fuzzer's fp32 tolerance). WRONG breaks them (bytes reversed, the
parts swapped, ddof off by one)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402
from gen_pack import from_bytes as _from_bytes_pack  # noqa: E402

KINDS = ("widen", "narrow", "trip", "window", "concat0", "varaxes")
SIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int32": 4, "int16": 2, "int8": 1, "uint8": 1}
PYPTO = {"fp32": "DT_FP32", "fp16": "DT_FP16", "bf16": "DT_BF16", "int32": "DT_INT32", "int16": "DT_INT16",
         "int8": "DT_INT8", "uint8": "DT_UINT8"}
NPT = {"fp32": "<f4", "fp16": "<f2", "int32": "<i4", "int16": "<i2", "int8": "i1", "uint8": "u1"}
FORCE = None
WRONG = False
PROB = 0.15


def row_bytes(a, dt):
    """The little-endian bytes of each row of a (rows of dt values held as float64)."""
    a = np.asarray(a, np.float64)
    if dt == "bf16":
        b = (a.astype(np.float32).view(np.uint32) >> 16).astype("<u2")
    else:
        b = np.ascontiguousarray(a.astype(NPT[dt]))
    return np.ascontiguousarray(b).view(np.uint8).reshape(a.shape[0], -1)


def from_row_bytes(b, dt):
    if dt == "bf16":
        return _from_bytes_pack(b.reshape(-1), "bf16").reshape(b.shape[0], -1)
    return np.ascontiguousarray(b).view(NPT[dt]).astype(np.float64)


def review(a, src, dst, wrong=False):
    b = row_bytes(a, src)
    if wrong:
        b = b[:, ::-1].copy()
    return from_row_bytes(b, dst)


class ViewDtype(M.Node):
    """view(x, dtype=DT): each row's bytes read as DT, the last axis scaled."""

    def __init__(self, x, src, dst, wrong=False):
        self.x, self.src, self.dtype, self.wrong = x, src, dst, wrong

    def children(self):
        return [self.x]

    def replace_child(self, i, new):
        self.x = new

    def text(self):
        return f"view({M.strip(self.x.text())}, dtype={PYPTO[self.dtype]})"

    def ev(self, env):
        v = self.x.ev(env)
        vr, vc = v.valid
        out = review(v.a[:vr, :vc], self.src, self.dtype, self.wrong)
        full = np.full((v.a.shape[0], v.a.shape[1] * SIZE[self.src] // SIZE[self.dtype]), np.nan)
        full[:vr, :out.shape[1]] = out
        return Value(full, [vr, out.shape[1]])


class Concat0(M.Node):
    def __init__(self, parts, dtype, wrong=False):
        self.parts, self.dtype, self.wrong = list(parts), dtype, wrong

    def children(self):
        return list(self.parts)

    def replace_child(self, i, new):
        self.parts[i] = new

    def text(self):
        return f"concat([{', '.join(M.strip(p.text()) for p in self.parts)}])"

    def ev(self, env):
        vs = [p.ev(env).a for p in self.parts]
        a = np.concatenate(vs[::-1] if self.wrong else vs, axis=0)
        return Value(a, list(a.shape))


class VarAxes(M.Node):
    def __init__(self, x, axes, spelling, ddof, keepdim, wrong=False):
        self.x, self.axes, self.spelling, self.ddof, self.keepdim, self.wrong = x, axes, spelling, ddof, keepdim, wrong
        self.dtype = "fp32"

    def children(self):
        return [self.x]

    def replace_child(self, i, new):
        self.x = new

    def text(self):
        args = [M.strip(self.x.text())]
        if self.axes is not None:
            args.append("[" + ", ".join(map(str, self.axes)) + "]")
        if self.spelling:
            args.append(self.spelling)
        if self.keepdim:
            args.append("keepdim=True")
        return f"var({', '.join(args)})"

    def ev(self, env):
        a = self.x.ev(env).a
        ax = tuple(range(a.ndim)) if self.axes is None else tuple(k % a.ndim for k in self.axes)
        v = np.var(a, axis=ax, ddof=self.ddof + (1 if self.wrong else 0), keepdims=self.keepdim)
        if v.ndim == 0:
            v = v.reshape(1)
        return Value(v, list(v.shape))


def construct(r, prog, kind):
    R = r.randint(1, 6)
    tr = r.randint(1, R)
    if kind == "widen":
        src = r.choice(["fp32", "fp16", "bf16", "int32", "int16"])
        dst = r.choice([d for d in ("int8", "uint8", "int16") if SIZE[d] < SIZE[src]])
        C = r.randint(1, 12)
        prog.inputs["p19in1"] = {"dtype": src, "shape": [R, C]}
        prog.kinds["p19in1"] = "wide" if src in ("int32", "int16") else "normal"
        prog.body.append(M.Raw({"vec_tile": [tr, r.randint(1, C)]}))
        x = M.Ref("p19in1", src)
        if r.random() < 0.4 and src != "int16":
            x = M.Bin("+", x, x, src)
        node = ViewDtype(x, src, dst, WRONG)
        shape = [R, C * SIZE[src] // SIZE[dst]]
    elif kind == "narrow":
        src = r.choice(["int8", "uint8", "int16"])
        dst = r.choice([d for d in ("int32", "int16") if SIZE[d] > SIZE[src]])
        k = SIZE[dst] // SIZE[src]
        n = r.randint(1, 8)
        prog.inputs["p19in1"] = {"dtype": src, "shape": [R, n * k]}
        prog.kinds["p19in1"] = "wide"
        prog.body.append(M.Raw({"vec_tile": [tr, k * r.randint(1, n)]}))
        node = ViewDtype(M.Ref("p19in1", src), src, dst, WRONG)
        shape = [R, n]
    elif kind == "trip":
        src = r.choice(["fp32", "fp16", "bf16"])
        C = r.randint(1, 10)
        prog.inputs["p19in1"] = {"dtype": src, "shape": [R, C]}
        prog.kinds["p19in1"] = "normal"
        prog.body.append(M.Raw({"vec_tile": [tr, r.randint(1, C)]}))
        prog.body.append(M.Bind("p19b", ViewDtype(M.Ref("p19in1", src), src, "int8", WRONG)))
        s = SIZE[src]
        prog.body.append(M.Raw({"vec_tile": [tr, s * r.randint(1, C)]}))
        node = ViewDtype(M.Ref("p19b", "int8"), "int8", src)
        shape = [R, C]
    elif kind == "concat0":
        dt = r.choice(["fp32", "int32", "fp16"])
        rest = [r.randint(1, 6) for _ in range(r.randint(1, 2))]
        m1, m2 = r.randint(1, 4), r.randint(1, 4)
        prog.inputs["p19in1"] = {"dtype": dt, "shape": [m1] + rest}
        prog.inputs["p19in2"] = {"dtype": dt, "shape": [m2] + rest}
        prog.kinds["p19in1"] = prog.kinds["p19in2"] = "small" if dt == "int32" else "normal"
        prog.body.append(M.Raw({"vec_tile": [r.randint(1, m1 + m2)] + [r.randint(1, k) for k in rest]}))
        node = Concat0([M.Ref("p19in1", dt), M.Ref("p19in2", dt)], dt, WRONG)
        shape = [m1 + m2] + rest
    elif kind == "varaxes":
        shp = [r.randint(1, 5)] + [r.randint(2, 8) for _ in range(r.randint(1, 2))]
        rank = len(shp)
        prog.inputs["p19in1"] = {"dtype": "fp32", "shape": shp}
        prog.kinds["p19in1"] = "normal"
        prog.body.append(M.Raw({"vec_tile": [r.randint(1, shp[0])] + shp[1:]}))
        axes = None if r.random() < 0.25 else sorted(r.sample(range(rank), r.randint(1, rank)))
        if axes is not None and r.random() < 0.3:
            axes = [a - rank for a in axes]
        spelling, ddof = r.choice([("unbiased=False", 0), ("unbiased=True", 1), ("", 1), ("correction=0", 0)])
        keep = r.random() < 0.5
        sel = range(rank) if axes is None else [a % rank for a in axes]
        if int(np.prod([shp[a] for a in sel])) - ddof <= 0:
            ddof, spelling = 0, "unbiased=False"
        node = VarAxes(M.Ref("p19in1", "fp32"), axes, spelling, ddof, keep, WRONG)
        shape = [1 if (k in sel) else shp[k] for k in range(rank)] if keep else [shp[k] for k in range(rank) if k not in sel]
        shape = shape or [1]
    else:
        n = r.randint(1, 4)
        off = 4 * r.randint(0, 4)
        W = 4 * n
        C = off + W + r.randint(0, 5)
        prog.inputs["p19in1"] = {"dtype": "int8", "shape": [R, C]}
        prog.kinds["p19in1"] = "wide"
        prog.body.append(M.Raw({"vec_tile": [tr, 4 * r.randint(1, n)]}))
        win = M.View("p19in1", "int8", [R, W], [0, off], None)
        node = ViewDtype(win, "int8", "int32", WRONG)
        shape = [R, n]
    prog.outputs["p19out1"] = {"dtype": node.dtype, "shape": shape}
    prog.body.append(M.Assemble("p19out1", [0] * len(shape), node))


def program_hook(g, prog):
    """With probability PROB (its own stream): one view(x, dtype=) group at the end of the body."""
    drawn = hook_stream.draw(g, "ports19", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.ports19 = [kind]


def used(prog):
    return ["ports19_" + k for k in (getattr(prog, "ports19", None) or [])]
