"""The fuzzer's hook for topk and argsort at PyPTO's sizes (native row sorts: per-tile sort, merge;
specs/README.md, topk): one statement at the end of the body with its own inputs (`t18in...`) and outputs
(`t18out...`), drawn from its own stream (`topk18{seed}`, after every other hook), so the rest of every
seed's program is unchanged. Per seed, with probability PROB, one of:

- `long`: topk of an fp32 [R, N] input, N up to 8192, k up to 2048, the vec_tile's last entry T with
  k <= T <= N (split into tiles, a tail tile sometimes shorter than k), largest or smallest;
- `dynlen`: topk over a run-time length: a dynamic dim S (bound per seed, sometimes below k) as the valid
  extent of a static window of N columns (view with valid=), split in tiles; past S the pad -inf / +inf and
  index -1;
- `argsort`: argsort of an fp32 or int32 (few distinct values: ties) [R, N] input, N up to 4096, whole axis.

The model is a NumPy stable argsort of the valid columns. WRONG (a selftest) breaks it (indices + 1)."""
import numpy as np

import model as M
from model import Value
import hook_stream  # noqa: E402
from gen_lang import Bind2  # noqa: E402

KINDS = ("long", "dynlen", "argsort")
FORCE = None
WRONG = False
PROB = 0.15


def sort_valid(x, valid_last, k, largest):
    """The first k of a stable sort of each row's valid_last columns; fewer: -inf / +inf and index -1."""
    x = x[..., :valid_last]
    order = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
    vals = np.take_along_axis(x, order, -1)
    idx = order.astype(np.float64)
    short = k - vals.shape[-1]
    if short > 0:
        pad = np.full(vals.shape[:-1] + (short,), -np.inf if largest else np.inf)
        vals = np.concatenate([vals, pad], -1)
        idx = np.concatenate([idx, np.full(pad.shape, -1.0)], -1)
    return vals, idx


class Topk18(M.Node):
    """topk(a, k, -1, largest) (values, int32 indices) or argsort(a, -1, descending) (k is the axis)."""

    def __init__(self, op, a, k, largest, dtype, wrong=False):
        self.op, self.a, self.k, self.largest, self.dtype, self.wrong = op, a, k, largest, dtype, wrong

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        if self.op == "argsort":
            return f"argsort({self.a.text()}, -1" + (")" if self.largest else ", descending=false)")
        return f"topk({self.a.text()}, {self.k}, -1" + (")" if self.largest else ", largest=false)")

    def ev_both(self, env):
        v = self.a.ev(env)
        vals, idx = sort_valid(v.a, v.valid[-1], self.k, self.largest)
        idx = idx + (1 if self.wrong else 0)
        lead = list(v.valid[:-1])
        return Value(vals, lead + [self.k]), Value(idx, lead + [self.k])

    def ev(self, env):
        vals, idx = self.ev_both(env)
        return idx if self.op == "argsort" else vals


def construct(r, prog, kind):
    R = r.randint(1, 2)
    if kind == "argsort":
        dt = r.choice(["fp32", "int32"])
        N = r.randint(2, 4096)
        prog.inputs["t18in1"] = {"dtype": dt, "shape": [R, N]}
        prog.kinds["t18in1"] = "small" if dt == "int32" else "normal"
        prog.body.append(M.Raw({"vec_tile": [R, N]}))
        node = Topk18("argsort", M.Ref("t18in1", dt), N, r.random() < 0.5, dt, wrong=WRONG)
        prog.outputs["t18out1"] = {"dtype": "int32", "shape": [R, N]}
        prog.body.append(M.Assemble("t18out1", [0, 0], node))
        return
    N = r.randint(64, 8192)
    k = r.randint(1, min(2048, N))
    T = r.randint(k, N)
    largest = r.random() < 0.6
    src = M.Ref("t18in1", "fp32")
    shape = [R, N]
    if kind == "dynlen":
        S = r.randint(1, N)
        prog.dims["T18S"] = {"dynamic": True, "max": N}
        prog.dimval["T18S"] = S
        shape = [R, "T18S"]
        src = M.View("t18in1", "fp32", [R, N], [0, 0], [R, "T18S"])
    prog.inputs["t18in1"] = {"dtype": "fp32", "shape": shape}
    prog.kinds["t18in1"] = "normal"
    prog.body.append(M.Raw({"vec_tile": [1, T]}))
    node = Topk18("topk", src, k, largest, "fp32", wrong=WRONG)
    prog.body.append(Bind2("t18v", "t18i", node))
    prog.outputs["t18out1"] = {"dtype": "fp32", "shape": [R, k]}
    prog.outputs["t18out2"] = {"dtype": "int32", "shape": [R, k]}
    prog.body.append(M.Assemble("t18out1", [0, 0], M.Ref("t18v", "fp32")))
    prog.body.append(M.Assemble("t18out2", [0, 0], M.Ref("t18i", "int32")))


def program_hook(g, prog):
    """With probability PROB (its own stream): one topk / argsort at PyPTO's sizes at the end of the body."""
    drawn = hook_stream.draw(g, "topk18", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.topk18 = [kind]


def used(prog):
    return ["topk18_" + k for k in (getattr(prog, "topk18", None) or [])]
