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
  deepseek's sparse-attention port).

The model is NumPy's .view(dtype) of each row's little-endian bytes. WRONG breaks it (bytes reversed)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402
from gen_pack import from_bytes as _from_bytes_pack  # noqa: E402

KINDS = ("widen", "narrow", "trip", "window")
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
    prog.body.append(M.Assemble("p19out1", [0, 0], node))


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
