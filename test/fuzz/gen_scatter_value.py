"""The fuzzer's hook for scatter_update into a value (specs/README.md, scatter_update): `y = scatter_update(v, -2,
index, src)` with v a value the body computes (`v = IN * m`, under a tile with tails), not a GM tensor; the
compiler copies v into a workspace named after y and writes the rows there. Appended at the end of the body with
its own inputs (`svin...`) and outputs (`svout...`), drawn from its own stream (`scatter_value{seed}`, after every
other hook), so the rest of every seed's program is unchanged. Per seed, with probability PROB, one of:

- `once`: one scatter of rank 2 ([R, D]) or rank 4 ([NB, BS, 1, D]), fp32 / fp16 / bf16 / int32;
- `twice`: a second scatter chained on the first one's result (two workspaces), both results stored;
- `computed`: one scatter whose index is computed on the device (`R - 1 - slots`, still duplicate-free), so the
  rows are selected there and the result assembled into the workspace without a copy.

Slots are duplicate-free (PyPTO leaves duplicates unspecified), drawn from [0, rows). The NumPy model copies v
(v itself stays as it was: it is stored too) and writes row j at slot slots[j]. WRONG writes row j at slot
slots[j] of the first row only (drops the others)."""
import numpy as np

import model as M
from model import Stmt, Value, rnd
import hook_stream  # noqa: E402

KINDS = ("once", "twice", "computed")
DTYPES = ("fp32", "fp16", "bf16", "int32")
FORCE = None
WRONG = False
PROB = 0.2


class ScatterValue(Stmt):
    """`y = scatter_update(v, -2, reshape(slots, [S, 1]), src)`: src [S, D] (rank 2) or [S, 1, 1, D] (rank 4)."""

    def __init__(self, y, v, slots, s, src, rank, d, wrong=False, index=None, flip=None):
        self.y, self.v, self.slots, self.s, self.src, self.rank, self.d = y, v, slots, s, src, rank, d
        self.wrong = wrong
        self.index, self.flip = index, flip  # a computed index: the bound value `index` = flip - slots

    def emit(self):
        src = self.src if self.rank == 2 else f"reshape({self.src}, [{self.s}, 1, 1, {self.d}])"
        index = self.index or f"reshape({self.slots}, [{self.s}, 1])"
        return f"{self.y} = scatter_update({self.v}, -2, {index}, {src})"

    def run(self, env):
        v = M.Ref(self.v, "").ev(env)
        out = v.a.copy()
        flat = out.reshape(-1, self.d)  # a view: writes go to out
        src = M.Ref(self.src, "").ev(env).a.reshape(-1, self.d)
        slots = env["tensors"][self.slots].astype(np.int64).reshape(-1)
        if self.flip is not None:
            slots = self.flip - slots
        for j, s in enumerate(slots):
            if self.wrong and j > 0:
                continue
            flat[s] = src[j]
        env["values"][self.y] = Value(out, out.shape)


class Scaled(M.Node):
    """`IN * m` of a whole input (the computed value v)."""

    def __init__(self, name, m, dtype):
        self.name, self.m, self.dtype = name, m, dtype

    def children(self):
        return []

    def text(self):
        return f"{self.name} * {self.m}"

    def ev(self, env):
        a = env["tensors"][self.name].astype(np.float64) * self.m
        a = a if self.dtype == "int32" else rnd(a, self.dtype)
        return Value(a, a.shape)


class Flipped(M.Node):
    """`F - reshape(slots, [S, 1])`: an int32 index computed on the device."""

    def __init__(self, slots, s, f):
        self.slots, self.s, self.f, self.dtype = slots, s, f, "int32"

    def children(self):
        return []

    def text(self):
        return f"{self.f} - reshape({self.slots}, [{self.s}, 1])"

    def ev(self, env):
        a = self.f - env["tensors"][self.slots].astype(np.float64).reshape(self.s, 1)
        return Value(a, a.shape)


def construct(r, prog, kind):
    dt = r.choice(DTYPES)
    rank = r.choice([2, 4])
    d = r.choice([8, 16, 32])
    if rank == 4:
        nb, bs = r.randint(1, 3), r.choice([2, 4])
        shape, rows = [nb, bs, 1, d], nb * bs
        vtile = [r.randint(1, nb), r.randint(1, bs), 1, d]
    else:
        rows = r.randint(3, 20)
        shape = [rows, d]
        vtile = [r.choice([1, 2, 4, 8, 16]), r.choice([d, max(1, d // 2)])]  # tails on both axes
    k = len([n for n in prog.inputs if n.startswith("svin")])
    base = f"svin{k}"
    prog.inputs[base] = {"dtype": dt, "shape": list(shape)}
    prog.kinds[base] = "small" if dt == "int32" else "normal"
    body = prog.body
    body.append(M.Raw({"vec_tile": vtile}))
    v = f"svv{k}"
    body.append(M.Bind(v, Scaled(base, r.choice([1, 2, -1]), dt)))
    prog.outputs[f"svout{k}v"] = {"dtype": dt, "shape": list(shape)}
    body.append(M.Assemble(f"svout{k}v", [0] * rank, M.Ref(v, dt)))  # v itself is unchanged
    cur = v
    for step in range(1 if kind == "once" else 2):
        s = r.randint(1, min(rows, 6))
        slots, src = f"svslots{k}_{step}", f"svsrc{k}_{step}"
        prog.inputs[slots] = {"dtype": "int32", "shape": [s], "values": [0, rows - 1]}
        prog.kinds[slots] = f"distinct:0:{rows - 1}"
        prog.inputs[src] = {"dtype": dt, "shape": [s, d]}
        prog.kinds[src] = "small" if dt == "int32" else "normal"
        index = None
        if kind == "computed":
            index = f"svci{k}"
            body.append(M.Raw({"vec_tile": [r.choice([1, s]), 1]}))
            body.append(M.Bind(index, Flipped(slots, s, rows - 1)))
        body.append(M.Raw({"vec_tile": [s, d] if rank == 2 else [s, 1, 1, d]}))
        y = f"svy{k}_{step}"
        body.append(ScatterValue(y, cur, slots, s, src, rank, d, WRONG == kind, index,
                                 rows - 1 if index else None))
        o = f"svout{k}_{step}"
        prog.outputs[o] = {"dtype": dt, "shape": list(shape)}
        body.append(M.Assemble(o, [0] * rank, M.Ref(y, dt)))
        cur = y


def program_hook(g, prog):
    """With probability PROB (its own stream): one or two scatters into a value at the end of the body."""
    drawn = hook_stream.draw(g, "scatter_value", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.scatter_value = [kind]


def used(prog):
    return ["scatter_value_" + k for k in (getattr(prog, "scatter_value", None) or [])]
