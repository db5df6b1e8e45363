"""The fuzzer's hook for pack / unpack (PyPTO's byte reinterpretation, specs/README.md section 8): one
statement at the end of the body with its own outputs (`pkout...`) and inputs (`pkin...`), drawn from its
own stream (`pack{seed}`, after every other hook), so the rest of every seed's program is unchanged.
Per seed, with probability PROB, one of:

- `pack1`: pack of a rank-1 input of any accepted dtype, the vec_tile not dividing the extent (tails);
- `packn`: pack of a rank-2 / rank-3 input (or of `x + x`) under a tile that is not whole rows;
- `unpack`: unpack of a 1-D uint8 input to any accepted dtype (integers: raw bytes; floats: the bytes of a
  pack of a float input, so no NaN payloads), the tile a multiple of sizeof(dtype);
- `bits`: unpack(bitwise_xor(pack(x), k), dtype): a bit trick on the bytes of an int32 / int8 input.

The model is NumPy's .view(np.uint8) / .view(dtype) of the little-endian storage. WRONG breaks it."""
import numpy as np

import model as M
from model import Value, rnd
import hook_stream  # noqa: E402

KINDS = ("pack1", "packn", "unpack", "bits")
PACK_DT = ("fp32", "fp16", "bf16", "int32", "int8", "uint8", "int64")
SIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int32": 4, "int8": 1, "uint8": 1, "int64": 8}
PYPTO = {"fp32": "DT_FP32", "fp16": "DT_FP16", "bf16": "DT_BF16", "int32": "DT_INT32", "int8": "DT_INT8",
         "uint8": "DT_UINT8", "int64": "DT_INT64"}
FORCE = None
WRONG = False
PROB = 0.2


def to_bytes(a, dt):
    a = np.asarray(a, np.float64)
    if dt == "bf16":
        return (a.astype(np.float32).view(np.uint32) >> 16).astype("<u2").reshape(-1).view(np.uint8)
    npt = {"fp32": "<f4", "fp16": "<f2", "int32": "<i4", "int8": "i1", "uint8": "u1", "int64": "<i8"}[dt]
    return np.ascontiguousarray(a.astype(npt)).reshape(-1).view(np.uint8)


def from_bytes(b, dt):
    b = np.ascontiguousarray(np.asarray(b).astype(np.uint8))
    if dt == "bf16":
        return (b.view("<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    npt = {"fp32": "<f4", "fp16": "<f2", "int32": "<i4", "int8": "i1", "uint8": "u1", "int64": "<i8"}[dt]
    return b.view(npt).astype(np.float64)


class Pack(M.Node):
    def __init__(self, x, dt, wrong=False):
        self.x, self.dt, self.wrong, self.dtype = x, dt, wrong, "uint8"

    def children(self):
        return [self.x]

    def replace_child(self, i, new):
        self.x = new

    def text(self):
        return f"pack({M.strip(self.x.text())})"

    def ev(self, env):
        v = self.x.ev(env)
        b = to_bytes(v.a, self.dt).astype(np.float64)
        if self.wrong:
            b = b[::-1].copy()
        return Value(b, b.shape)


class Unpack(M.Node):
    def __init__(self, x, dt):
        self.x, self.dt, self.dtype = x, dt, dt

    def children(self):
        return [self.x]

    def replace_child(self, i, new):
        self.x = new

    def text(self):
        return f"unpack({M.strip(self.x.text())}, {PYPTO[self.dt]})"

    def ev(self, env):
        v = self.x.ev(env)
        a = from_bytes(v.a, self.dt)
        return Value(a, a.shape)


def construct(r, prog, kind):
    if kind == "pack1":
        dt = r.choice(PACK_DT)
        n = r.randint(1, 50)
        prog.inputs["pkin1"] = {"dtype": dt, "shape": [n]}
        prog.kinds["pkin1"] = "wide"
        prog.body.append(M.Raw({"vec_tile": [r.choice([1, 3, 8, 16, 32])]}))
        node, shape = Pack(M.Ref("pkin1", dt), dt, WRONG), [n * SIZE[dt]]
    elif kind == "packn":
        dt = r.choice(PACK_DT)
        shp = r.choice([[r.randint(1, 7), r.randint(1, 12)], [r.randint(1, 3), r.randint(1, 4), r.randint(1, 6)]])
        prog.inputs["pkin1"] = {"dtype": dt, "shape": shp}
        prog.kinds["pkin1"] = "small" if dt not in ("uint8",) else "normal"
        prog.body.append(M.Raw({"vec_tile": [max(1, s // r.choice([1, 2, 3])) for s in shp]}))
        x = M.Ref("pkin1", dt)
        if r.random() < 0.5 and dt not in ("uint8", "int64"):  # `+` takes no int64 (the draw stays)
            x = M.Bin("+", x, x, dt)
        node, shape = Pack(x, dt, WRONG), [int(np.prod(shp)) * SIZE[dt]]
    elif kind == "unpack":
        dt = r.choice(PACK_DT)
        s = SIZE[dt]
        if dt in ("fp32", "fp16", "bf16"):
            n = r.randint(1, 30)
            prog.inputs["pkin1"] = {"dtype": dt, "shape": [n]}
            prog.kinds["pkin1"] = "normal"
            prog.body.append(M.Raw({"vec_tile": [r.choice([1, 4, 7, 16])]}))
            prog.body.append(M.Bind("pkb", Pack(M.Ref("pkin1", dt), dt, WRONG)))
            src = M.Ref("pkb", "uint8")
        else:
            n = r.randint(1, 30)
            prog.inputs["pkin1"] = {"dtype": "uint8", "shape": [n * s]}
            prog.kinds["pkin1"] = "wide"
            src = M.Ref("pkin1", "uint8")
        prog.body.append(M.Raw({"vec_tile": [s * r.choice([1, 2, 3, 5, 8])]}))
        node, shape = Unpack(src, dt), [n]
        if WRONG and dt not in ("fp32", "fp16", "bf16"):
            node = Unpack(M.Bin("bitwise_xor", src, M.Const(1, "uint8"), "uint8"), dt)
    else:
        dt = r.choice(["int32", "int8", "int64"])
        n = r.randint(1, 30)
        prog.inputs["pkin1"] = {"dtype": dt, "shape": [n]}
        prog.kinds["pkin1"] = "wide"
        prog.body.append(M.Raw({"vec_tile": [r.choice([2, 4, 8, 16])]}))
        b = M.Bin("bitwise_xor", Pack(M.Ref("pkin1", dt), dt, WRONG), M.Const(r.choice([1, 85, 255]), "uint8"), "uint8")
        prog.body.append(M.Bind("pkb", b))
        prog.body.append(M.Raw({"vec_tile": [SIZE[dt] * r.choice([1, 2, 4])]}))
        node, shape = Unpack(M.Ref("pkb", "uint8"), dt), [n]
    o = "pkout1"
    prog.outputs[o] = {"dtype": node.dtype, "shape": shape}
    prog.body.append(M.Assemble(o, [0], node))


def program_hook(g, prog):
    """With probability PROB (its own stream): one pack / unpack statement at the end of the body."""
    drawn = hook_stream.draw(g, "pack", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.pack = [kind]


def used(prog):
    return ["pack_" + k for k in (getattr(prog, "pack", None) or [])]
