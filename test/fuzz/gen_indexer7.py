"""The fuzzer's hook for topk over a sorted axis split by the vec_tile (PyPTO's MERGE_SORT rule: k <=
TileShape[-1]; specs/README.md, topk): one `v, i = topk(...)` at the end of the body with its own inputs
(`i7in...`) and outputs (`i7out...`), drawn from its own stream (`indexer7{seed}`, after every other hook),
so the rest of every seed's program is unchanged. Per seed, with probability PROB, one of:

- `last`: topk of an fp32 / fp16 / bf16 [R, N] input along the last axis, the vec_tile's last entry T with
  k <= T < N (a tail tile, sometimes shorter than k), largest or smallest;
- `ties`: the same on int32 or fp16 inputs of few distinct values (ties across tiles: the lower index first);
- `axis0`: topk along axis 0 of an [N, C] input split by the tile's first entry.

The model is a NumPy stable argsort of the whole axis. WRONG (a selftest) breaks it (indices + 1)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402
from gen_lang import Bind2  # noqa: E402

KINDS = ("last", "ties", "axis0")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None
WRONG = False
PROB = 0.2


class TopkSplit(M.Node):
    """topk(a, k, axis, largest): values and int32 indices, a stable order (ties: the lower index)."""

    def __init__(self, a, k, axis, largest, dtype, wrong=False):
        self.a, self.k, self.axis, self.largest, self.dtype, self.wrong = a, k, axis, largest, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"topk({self.a.text()}, {self.k}, {self.axis}" + (")" if self.largest else ", largest=false)")

    def ev_both(self, env):
        x = self.a.ev(env).a
        order = np.argsort(-x if self.largest else x, axis=self.axis, kind="stable")
        order = np.take(order, np.arange(self.k), axis=self.axis)
        vals = np.take_along_axis(x, order, self.axis)
        idx = order.astype(np.float64) + (1 if self.wrong else 0)
        return Value(vals, list(vals.shape)), Value(idx, list(idx.shape))

    def ev(self, env):
        return self.ev_both(env)[0]


def construct(r, prog, kind):
    if kind == "ties":
        dt = r.choice(["int32", "fp16"])
        in_kind = "small" if dt == "int32" else "half"
    else:
        dt = r.choice(FLOAT)
        in_kind = "normal"
    R, N = r.randint(1, 6), r.randint(20, 300)
    k = r.randint(1, min(32, N // 2))
    T = r.randint(k, N - 1)
    largest = r.random() < 0.7
    if kind == "axis0":
        shape, axis, tile = [N, R], 0, [T, r.randint(1, R)]
        out_shape = [k, R]
    else:
        shape, axis, tile = [R, N], 1, [r.randint(1, R), T]
        out_shape = [R, k]
    prog.inputs["i7in1"] = {"dtype": dt, "shape": shape}
    prog.kinds["i7in1"] = in_kind
    prog.body.append(M.Raw({"vec_tile": tile}))
    node = TopkSplit(M.Ref("i7in1", dt), k, axis, largest, dt, wrong=WRONG)
    prog.body.append(Bind2("i7v", "i7i", node))
    prog.outputs["i7out1"] = {"dtype": dt, "shape": out_shape}
    prog.outputs["i7out2"] = {"dtype": "int32", "shape": out_shape}
    prog.body.append(M.Assemble("i7out1", [0, 0], M.Ref("i7v", dt)))
    prog.body.append(M.Assemble("i7out2", [0, 0], M.Ref("i7i", "int32")))


def program_hook(g, prog):
    """With probability PROB (its own stream): one split-axis topk at the end of the body."""
    drawn = hook_stream.draw(g, "indexer7", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.indexer7 = [kind]


def used(prog):
    return ["indexer7_" + k for k in (getattr(prog, "indexer7", None) or [])]
