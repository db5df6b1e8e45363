"""Generator hooks and model nodes of the language's remaining constructs (gen.py calls them):
two-result `v, i = topk(x, k, -1)`, `argsort`, `argmax`/`argmin`, `one_hot`, `arange`, `dequantize`,
`scaled_mm`, `index_select` (dim 0), row scatter (`cache[slot[s], :] = row`), local tensors
(`t = tensor(shape, dtype)` assembled piece by piece), run-time `if` on `is_loop_begin`/`is_loop_end`
with a loop carry, `cond` on a loop variable, and a compile-time `if` on a static loop's variable.

Everything here draws from the generator's own stream `r_lang2` and names its inputs, outputs and
values from its own counter, into side dictionaries merged at the end (`Gen.program`), so a seed
that draws none of them generates the program it always did. The NumPy meaning of each node is
written from specs/README.md: stable sorts (ties: the lower index first), NumPy's argmax ties,
one_hot's zero rows outside 0..C-1, dequantize = (fp32(x) + zp) * scale, scaled_mm =
fp32(a @ b) * scale_a * scale_b rounded after every step, as the front end composes them.
"""
import copy

import numpy as np

import model as M
from model import Assemble, Bin, Bind, Const, Full, Matmul, Raw, Ref, Slice, Stmt, Un, Value, View, rnd

FLOATS = ("fp32", "fp16", "bf16")
FEATURES = ("topk", "argsort", "argmax", "one_hot", "arange", "dequantize", "scaled_mm", "index_select",
            "scatter", "local_tensor", "loop_begin_end", "cond", "static_if")


# ---------------------------------------------------------------- model nodes
def _masked_box(out, r, valid):
    box = tuple(slice(0, n) for n in valid)
    out[box] = r[box]
    return out


class Sort(M.Node):
    """topk (k largest or smallest, values and int32 indices) or argsort along the last axis; `which`
    picks the result this node stands for ("values" or "indices"). Stable: ties go to the lower index."""

    def __init__(self, op, a, k, largest, dtype, which="values"):
        self.op, self.a, self.k, self.largest, self.dtype, self.which = op, a, k, largest, dtype, which

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        if self.op == "topk":
            return f"topk({self.a.text()}, {self.k}, -1" + (", largest=false)" if not self.largest else ")")
        return f"argsort({self.a.text()}, -1" + (", descending=false)" if not self.largest else ")")

    def ev_both(self, env):
        v = self.a.ev(env)
        n = v.valid[-1]
        data = v.a[..., :n]
        key = -data if self.largest else data
        idx = np.argsort(np.nan_to_num(key, nan=0.0), axis=-1, kind="stable")
        k = self.k if self.op == "topk" else n
        idx = idx[..., :k]
        vals = np.take_along_axis(data, idx, axis=-1)
        shape = list(v.a.shape[:-1]) + [k]
        valid = list(v.valid[:-1]) + [k]
        return (Value(_masked_box(np.full(shape, np.nan), vals, valid), valid),
                Value(_masked_box(np.full(shape, np.nan), idx.astype(np.float64), valid), valid))

    def ev(self, env):
        vals, idx = self.ev_both(env)
        return idx if (self.which == "indices" or self.op == "argsort") else vals


class Bind2(Stmt):
    """v, i = topk(...): two names bound by one call."""

    def __init__(self, n1, n2, expr):
        self.n1, self.n2, self.expr = n1, n2, expr

    def emit(self):
        return f"{self.n1}, {self.n2} = {self.expr.text()}"

    def run(self, env):
        env["values"][self.n1], env["values"][self.n2] = self.expr.ev_both(env)


class ArgExt(M.Node):
    """argmax / argmin (NumPy's first index of the extreme) along `axis`, int32."""

    def __init__(self, op, a, axis, keepdim):
        self.op, self.a, self.axis, self.keepdim, self.dtype = op, a, axis, keepdim, "int32"

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"{self.op}({self.a.text()}, {self.axis}" + (", keepdim=true)" if self.keepdim else ")")

    def ev(self, env):
        v = self.a.ev(env)
        ax = self.axis % v.a.ndim
        data = v.a[tuple(slice(0, n) for n in v.valid)]
        r = (np.argmax if self.op == "argmax" else np.argmin)(data, axis=ax)
        r = np.expand_dims(r, ax).astype(np.float64)
        shape, valid = list(v.a.shape), list(v.valid)
        shape[ax], valid[ax] = 1, 1
        out = _masked_box(np.full(shape, np.nan), r, valid)
        if not self.keepdim:
            out = out.reshape([n for i, n in enumerate(shape) if i != ax])
            valid = [n for i, n in enumerate(valid) if i != ax]
        return Value(out, valid)


class OneHot(M.Node):
    def __init__(self, a, classes):
        self.a, self.classes, self.dtype = a, classes, "int32"

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"one_hot({self.a.text()}, {self.classes})"

    def ev(self, env):
        v = self.a.ev(env)
        r = (v.a[..., None] == np.arange(self.classes)).astype(np.float64)
        valid = list(v.valid) + [self.classes]
        return Value(_masked_box(np.full(r.shape, np.nan), r, valid), valid)


class Arange(M.Node):
    def __init__(self, args):
        self.args = list(args)  # (end,) or (start, end, step)
        self.dtype = "int32" if all(isinstance(x, int) for x in self.args) else "fp32"

    def text(self):
        return f"arange({', '.join(str(x) for x in self.args)})"

    def ev(self, env):
        s, e, st = (0, self.args[0], 1) if len(self.args) == 1 else self.args
        n = int(np.ceil((e - s) / st))
        r = rnd(s + np.arange(n) * float(st), self.dtype)
        return Value(r, [n])


class VSlice(M.Node):
    """value[s0:e0, ...] with static bounds on a computed value (the valid box clips)."""

    def __init__(self, a, starts, stops, dtype):
        self.a, self.starts, self.stops, self.dtype = a, list(starts), list(stops), dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"{self.a.text()}[" + ", ".join(f"{s}:{e}" for s, e in zip(self.starts, self.stops)) + "]"

    def ev(self, env):
        v = self.a.ev(env)
        box = tuple(slice(s, e) for s, e in zip(self.starts, self.stops))
        valid = [max(0, min(w, e) - s) for w, s, e in zip(v.valid, self.starts, self.stops)]
        if any(w <= 0 for w in valid):
            raise M.ModelError("slice of an invalid region")
        return Value(v.a[box].copy(), valid)


class Dequant(M.Node):
    """dequantize(x, scale, fp32, axis[, zp]) = (fp32(x) + zp) * scale, each step rounded to fp32."""

    def __init__(self, a, scale, zp, axis):
        self.a, self.scale, self.zp, self.axis, self.dtype = a, scale, zp, axis, "fp32"

    def children(self):
        return [self.a, self.scale] + ([self.zp] if self.zp is not None else [])

    def replace_child(self, i, new):
        setattr(self, ["a", "scale", "zp"][i], new)

    def text(self):
        zp = f", {self.zp.text()}" if self.zp is not None else ""
        return f"dequantize({self.a.text()}, {self.scale.text()}, fp32, {self.axis}{zp})"

    @staticmethod
    def per_axis(val, x, axis):
        """A scale of shape [.., C] (axis left out) as the same rank as x (extent 1 at axis)."""
        a = val.a
        if a.ndim < x.a.ndim:
            a = np.expand_dims(a, axis % x.a.ndim)
        return a

    def ev(self, env):
        v = self.a.ev(env)
        f = rnd(np.nan_to_num(v.a, nan=0.0), "fp32")
        if self.zp is not None:
            f = rnd(f + self.per_axis(self.zp.ev(env), v, self.axis), "fp32")
        r = rnd(f * self.per_axis(self.scale.ev(env), v, self.axis), "fp32")
        return Value(_masked_box(np.full(v.a.shape, np.nan), r, v.valid), v.valid)


class ScaledMM(M.Node):
    def __init__(self, a, b, dtype, sa, sb, ta, tb):
        self.a, self.b, self.dtype, self.sa, self.sb, self.ta, self.tb = a, b, dtype, sa, sb, ta, tb

    def children(self):
        return [self.a, self.b, self.sa, self.sb]

    def replace_child(self, i, new):
        setattr(self, ["a", "b", "sa", "sb"][i], new)

    def text(self):
        s = f"scaled_mm({self.a.text()}, {self.b.text()}, {self.dtype}, {self.sa.text()}, {self.sb.text()}"
        if self.ta:
            s += ", a_trans=true"
        if self.tb:
            s += ", b_trans=true"
        return s + ")"

    def ev(self, env):
        c = Matmul(self.a, self.b, "int32", self.ta, self.tb).ev(env)
        sa, sb = self.sa.ev(env).a, self.sb.ev(env).a
        if sa.ndim == 1:
            sa = sa[:, None]
        if sb.ndim == 1:
            sb = sb[None, :]
        with np.errstate(all="ignore"):
            f = rnd(np.nan_to_num(c.a, nan=0.0), "fp32")
            f = rnd(rnd(f * sa, "fp32") * sb, "fp32")
            r = rnd(f, self.dtype)
        return Value(_masked_box(np.full(c.a.shape, np.nan), r, c.valid), c.valid)


class IndexSelect(M.Node):
    def __init__(self, tensor, idx, dtype):
        self.tensor, self.idx, self.dtype = tensor, idx, dtype

    def text(self):
        return f"index_select({self.tensor}, 0, {self.idx})"

    def ev(self, env):
        x = env["tensors"][self.tensor]
        ids = env["tensors"][self.idx].astype(np.int64)
        r = x[ids]
        return Value(r.copy(), r.shape)


class LocalTensor(Stmt):
    """t = tensor([shape], dtype): a zero-filled tensor per instance of the statement."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, list(shape), dtype

    def emit(self):
        return f"{self.name} = tensor([{', '.join(map(str, self.shape))}], {self.dtype})"

    def run(self, env):
        env["values"].pop(self.name, None)
        env["tensors"][self.name] = np.zeros([M.dim_eval(e, env["dims"]) for e in self.shape])


class ScatterRow(Stmt):
    """cache[slot[v], :] = row: the row lands where the int32 input says (run-time value)."""

    def __init__(self, tensor, slot, var, expr):
        self.tensor, self.slot, self.var, self.expr = tensor, slot, var, expr

    def emit(self):
        return f"{self.tensor}[{self.slot}[{self.var}], :] = {M.strip(self.expr.text())}"

    def run(self, env):
        v = self.expr.ev(env)
        t = env["tensors"][self.tensor]
        o = int(env["tensors"][self.slot][env["dims"][self.var]])
        n = min(v.valid[1], t.shape[1])
        t[o:o + 1, :n] = v.a[0:1, :n]


class RtIf(Stmt):
    """{if: is_loop_begin(v) | is_loop_end(v) | a condition on static-loop variables} or {cond: ...}:
    `test(env)` decides per iteration (the model knows the loop's count to decide is_loop_end)."""

    def __init__(self, key, cond, test, then, els=None):
        self.key, self.cond, self.test, self.then, self.els = key, cond, test, then, els

    def items(self):
        return [self.then] + ([self.els] if self.els is not None else [])

    def emit(self):
        d = {self.key: self.cond, "then": [s.emit() for s in self.then]}
        if self.els is not None:
            d["else"] = [s.emit() for s in self.els]
        return d

    def run(self, env):
        for s in (self.then if self.test(env["dims"]) else (self.els or [])):
            s.run(env)


# ---------------------------------------------------------------- generator side
class Side:
    """Swaps the generator's stream, counters and dictionaries for the hook's own, and back."""

    def __init__(self, g):
        self.g = g

    def __enter__(self):
        g = self.g
        if not hasattr(g, "lang2"):
            g.lang2 = {"n": 1000, "inputs": {}, "outputs": {}, "tensors": {}, "kinds": {}, "used": []}
        s = g.lang2
        self.saved = (g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds)
        g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds = (g.r_lang2, s["n"], s["inputs"], s["outputs"],
                                                             s["tensors"], s["kinds"])
        return g

    def __exit__(self, *exc):
        g = self.g
        g.lang2["n"] = g.n
        g.r, g.n, g.inputs, g.outputs, g.tensors, g.kinds = self.saved
        return False


def merge_state(g, s):
    """A hook's inputs, outputs and tensors (its state dict `s`, or None) join the program's."""
    if not s:
        return
    g.inputs.update(s["inputs"])
    g.outputs.update(s["outputs"])
    g.tensors.update(s["tensors"])
    g.kinds.update(s["kinds"])


def merge(g):
    """At the end of Gen.program: the hook's inputs, outputs and tensors join the program's."""
    merge_state(g, getattr(g, "lang2", None))


def _last_tile(stmts):
    for s in reversed(stmts):
        if isinstance(s, Raw) and ("vec_tile" in s.obj or ("if" in s.obj and "then" in s.obj)):
            return s
    return None


def _restore_tile(ctx, before_len, saved_rank, saved_cube):
    """The main stream continues with the vec_tile in force before the hook (its own draws assume it)."""
    last = _last_tile(ctx.stmts[:before_len])
    if len(ctx.stmts) > before_len and last is not None:
        ctx.stmts.append(Raw(copy.deepcopy(last.obj)))
    ctx.tile_rank, ctx.cube_set = saved_rank, saved_cube


def _lead_out(g, ctx, lead_shape, last_ext, dtype, rank_out=None):
    """An output for a value whose leading axes are the window's and whose last extent is `last_ext`."""
    texts, offs = [], []
    for ax, e in zip(ctx.axes, lead_shape):
        texts.append(ax.tensor_extent)
        offs.append(ax.start)
    if last_ext is not None:
        texts.append(last_ext)
        offs.append(0)
    name = g.fresh("out")
    g.outputs[name] = {"dtype": dtype, "shape": texts}
    return name, offs


def _use(g, what):
    g.lang2["used"].append(what)


def _tile(g, ctx, lead, last):
    """vec_tile with the last axis whole (`last`) and few leading elements."""
    r = g.r
    t = [r.choice([1, 1, 2, 4, 8]) if isinstance(e, int) else 1 for e in lead]
    t = [min(x, e) if isinstance(e, int) else x for x, e in zip(t, lead)]
    while np.prod(t or [1]) * last > 4096 and any(x > 1 for x in t):
        i = max(range(len(t)), key=lambda j: t[j])
        t[i] = max(1, t[i] // 2)
    ctx.stmts.append(Raw({"vec_tile": t + [last]}))


def _instances(shape, tile):
    """Tile instances of a value of this static shape (dynamic extents count as 64)."""
    n = 1
    for e, t in zip(shape, tile):
        n *= -(-(e if isinstance(e, int) else 64) // t)
    return n


# Leaf tasks a hook's op may add (instances x steps): the compile stays fast and far below the limit
BUDGET = 3000


def _last_whole(ctx, limit):
    ax = ctx.axes[-1]
    return ax.vkey == "f" and isinstance(ax.extent, int) and 2 <= ax.extent <= limit and not ctx.gear


def h_sort(g, ctx, op):
    """topk / argsort of an exact input window (ties of equal inputs go to the lower index)."""
    limit = 256 if op == "topk" else 48
    if not _last_whole(ctx, limit):
        return False
    shape = [a.extent for a in ctx.axes]
    N = shape[-1]
    dt = g.r.choice([g.dtype, g.dtype, "int32"])
    _tile(g, ctx, shape[:-1], N)
    x, tx = g.window_input(ctx, shape, dt)
    steps = 4 * (N if op == "argsort" else min(N, 16))
    if tx.shape != tuple(shape) or _instances(shape, ctx.stmts[-1].obj["vec_tile"]) * steps > BUDGET:
        return False
    if g.r.random() < 0.3:
        x = Un(g.r.choice(["abs", "neg"]), x, dt)
    largest = g.r.random() < 0.7
    vname, iname = g.fresh("t"), g.fresh("t")
    if op == "topk":
        k = g.r.choice([1, 2, 3, 8, min(N, 16), N]) if N >= 2 else 1
        k = min(k, N)
        if _instances(shape, ctx.stmts[-1].obj["vec_tile"]) * 4 * k > BUDGET:
            k = min(k, 3)
        node = Sort("topk", x, k, largest, dt)
        ctx.stmts.append(Bind2(vname, iname, node))
        o1, off = _lead_out(g, ctx, shape[:-1], k, dt)
        ctx.stmts.append(Assemble(o1, off, Ref(vname, dt)))
    else:
        k = N
        ctx.stmts.append(Bind(iname, Sort("argsort", x, None, largest, "int32")))
    o2, off = _lead_out(g, ctx, shape[:-1], k, "int32")
    idx = Ref(iname, "int32")
    if g.r.random() < 0.3:
        idx = Bin("+", idx, Const(1, "int32"), "int32")
    ctx.stmts.append(Assemble(o2, off, idx))
    return True


def h_argmax(g, ctx):
    shape = [a.extent for a in ctx.axes]
    rank = len(shape)
    op = g.r.choice(["argmax", "argmin"])
    dt = g.r.choice([g.dtype, g.dtype, "int32"])
    rows_whole = (rank == 2 and ctx.axes[0].vkey == "f" and isinstance(shape[0], int) and 2 <= shape[0] <= 64
                  and not ctx.gear)
    if rows_whole and g.r.random() < 0.3:
        # over axis 0: the rows whole in the tile
        ctx.stmts.append(Raw({"vec_tile": [shape[0], g.r.choice([16, 32])]}))
        x, tx = g.window_input(ctx, shape, dt)
        keep = g.r.random() < 0.6
        name = g.fresh("t")
        ctx.stmts.append(Bind(name, ArgExt(op, x, g.r.choice([0, -2]), keep)))
        out = g.fresh("out")
        cols = ctx.axes[1]
        g.outputs[out] = {"dtype": "int32", "shape": ([1] if keep else []) + [cols.tensor_extent]}
        ctx.stmts.append(Raw({"vec_tile": ([1] if keep else []) + [16]}))
        ctx.stmts.append(Assemble(out, ([0] if keep else []) + [cols.start], Ref(name, "int32")))
        return True
    if not _last_whole(ctx, 4096):
        return False
    _tile(g, ctx, shape[:-1], shape[-1])
    x, tx = g.window_input(ctx, shape, dt)
    if tx.shape != tuple(shape) or _instances(shape, ctx.stmts[-1].obj["vec_tile"]) * 2 > BUDGET:
        return False
    keep = rank == 1 or g.r.random() < 0.6
    name = g.fresh("t")
    ctx.stmts.append(Bind(name, ArgExt(op, x, g.r.choice([-1, rank - 1]), keep)))
    o, off = _lead_out(g, ctx, shape[:-1], 1 if keep else None, "int32")
    if not keep:
        _tile(g, ctx, shape[:-2], shape[-2] if isinstance(shape[-2], int) and shape[-2] <= 256 else 16)
        ctx.stmts[-1].obj["vec_tile"][-1] = min(ctx.stmts[-1].obj["vec_tile"][-1], 64)
    ctx.stmts.append(Assemble(o, off, Ref(name, "int32")))
    return True


def h_one_hot(g, ctx):
    shape = [a.extent for a in ctx.axes]
    rank = len(shape)
    lead = shape[:-1] if rank >= 2 else shape
    C = g.r.choice([2, 3, 5, 8, 16, 32])
    idx_name = g.new_input([ax.tensor_extent for ax in ctx.axes[:len(lead)]], "int32")
    g.kinds[idx_name] = f"range:-1:{C}"
    axes = ctx.axes[:len(lead)]
    if all(ax.start == 0 and str(ax.stop) == str(ax.tensor_extent) for ax in axes):
        node = Ref(idx_name, "int32")
    else:
        node = Slice(idx_name, "int32", [ax.start for ax in axes], [ax.stop for ax in axes])
    _tile(g, ctx, lead, C)
    if "trailing_one" in g.avoid:
        # one_hot reshapes its input to [..., 1]: one row per tile keeps clear of gen.KNOWN["trailing_one"]
        ctx.stmts[-1].obj["vec_tile"] = [1] * len(lead) + [C]
    if _instances(lead + [C], ctx.stmts[-1].obj["vec_tile"]) * 8 > BUDGET:
        ctx.stmts.pop()
        return False
    name = g.fresh("t")
    ctx.stmts.append(Bind(name, OneHot(node, C)))
    o, off = _lead_out(g, ctx, lead, C, "int32")
    val = Ref(name, "int32")
    if g.r.random() < 0.4:
        val = Bin("*", val, Const(3, "int32"), "int32")
    ctx.stmts.append(Assemble(o, off, val))
    return True


def h_arange(g, ctx):
    r = g.r
    form = r.choice(["end", "ints", "float"])
    if form == "end":
        args = [r.choice([1, 5, 16, 37, 64, 200])]
    elif form == "ints":
        s = r.randint(-20, 20)
        args = [s, s + r.randint(1, 120), r.choice([1, 2, 3, 7])]
    else:
        s = r.choice([0.5, -3.25, 0, 2])
        args = [s, s + r.choice([4, 10.5, 33, 100]), r.choice([0.25, 0.5, 1.5, 2])]
    node = Arange(args)
    n = node.ev({"dims": {}}).a.shape[0]
    ctx.stmts.append(Raw({"vec_tile": [r.choice([16, 32, 64, 256])]}))
    name = g.fresh("t")
    ctx.stmts.append(Bind(name, node))
    val = Ref(name, node.dtype)
    if r.random() < 0.5:
        val = Bin(r.choice(["+", "*"]), val, Const(2, node.dtype), node.dtype)
    out = g.fresh("out")
    g.outputs[out] = {"dtype": node.dtype, "shape": [n]}
    ctx.stmts.append(Assemble(out, [0], val))
    return True


def _vector_of(g, ctx, ax_i, form):
    """A per-row (ax_i 0) or per-column (ax_i 1) fp32 scale of the window: rank 1 or extent-1 rank 2."""
    ax = ctx.axes[ax_i]
    if form == "rank1" and ax_i == 0 and "trailing_one" in g.avoid:
        form = "rank2"  # [R] -> [R, 1] over a loop window: the open defect of gen.KNOWN["trailing_one"]
    if form == "rank1":
        name = g.new_input([ax.tensor_extent], "fp32")
        if ax.start == 0 and str(ax.stop) == str(ax.tensor_extent):
            return Ref(name, "fp32")
        return Slice(name, "fp32", [ax.start], [ax.stop])
    shape = [ctx.axes[0].extent, 1] if ax_i == 0 else [1, ctx.axes[1].extent]
    return g.window_input(ctx, shape, "fp32")[0]


def h_dequantize(g, ctx):
    if len(ctx.axes) != 2 or ctx.gear:
        return False
    shape = [a.extent for a in ctx.axes]
    dt = g.r.choice(["int8", "uint8", "int32"])
    g.vec_tile(ctx, shape, force=True)
    x, tx = g.window_input(ctx, shape, dt)
    axis = g.r.choice([-1, -2, 1, 0])
    per = 0 if axis in (-1, 1) else 1
    sc = _vector_of(g, ctx, per, g.r.choice(["rank1", "rank2"]))
    zp = _vector_of(g, ctx, per, g.r.choice(["rank1", "rank2"])) if g.r.random() < 0.5 else None
    name = g.fresh("t")
    ctx.stmts.append(Bind(name, Dequant(x, sc, zp, axis)))
    o, off = g.output_for(ctx, M_T(shape, "fp32", tx.vkey))
    ctx.stmts.append(Assemble(o, off, Ref(name, "fp32")))
    return True


class M_T:
    """The little of gen.T that output_for reads."""

    def __init__(self, shape, dtype, vkey):
        self.shape, self.dtype, self.vkey = tuple(shape), dtype, tuple(vkey)


def h_scaled_mm(g, ctx):
    if len(ctx.axes) != 2 or ctx.gear_mm_off or ctx.axes[-1].vkey != "f":
        return False
    shape = [a.extent for a in ctx.axes]
    vkey = [a.vkey for a in ctx.axes]
    g.cube_tile(ctx, "int32", force=True)
    mm, _ = g.matmul(ctx, shape, "int32", vkey, ind="int8")
    if not isinstance(mm, Matmul):
        return False
    od = g.r.choice(["fp32", "fp16", "bf16"])
    sa = _vector_of(g, ctx, 0, g.r.choice(["rank1", "rank2"]))
    sb = _vector_of(g, ctx, 1, g.r.choice(["rank1", "rank2"]))
    if mm.b.dtype != "int8" or mm.a.dtype != "int8":
        return False
    node = ScaledMM(mm.a, mm.b, od, sa, sb, mm.trans_a, mm.trans_b)
    name = g.fresh("t")
    g.vec_tile(ctx, shape, force=True)  # its scaling is vector ops
    ctx.stmts.append(Bind(name, node))
    o, off = g.output_for(ctx, M_T(shape, od, vkey))
    ctx.stmts.append(Assemble(o, off, Ref(name, od)))
    return True


def h_local_tensor(g, ctx):
    """t = tensor([window], dt); pieces of the last axis written in any order (maybe overlapping, maybe a
    gap that reads as zero), read back whole (narrowed to the window's valid box) into an output."""
    r = g.r
    if ctx.gear:
        return False
    shape = [a.extent for a in ctx.axes]
    if not all(isinstance(e, int) for e in shape) or shape[-1] < 2:
        return False
    dt = g.dtype
    vkey = [a.vkey for a in ctx.axes]
    g.vec_tile(ctx, shape, force=True)
    src, ts = g.window_input(ctx, shape, dt)
    if ts.shape != tuple(shape):
        return False
    xw = g.fresh("t")
    ctx.stmts.append(Bind(xw, src))
    t = g.fresh("lt")
    ctx.stmts.append(LocalTensor(t, shape, dt))
    N = shape[-1]
    cuts = sorted(set([0, N] + [r.randint(1, N - 1) for _ in range(r.randint(1, 2))]))
    pieces = list(zip(cuts[:-1], cuts[1:]))
    r.shuffle(pieces)
    if len(pieces) > 2 and r.random() < 0.3:
        pieces.pop()  # a gap: never written, reads as zero
    lead0 = [0] * (len(shape) - 1)
    for c0, c1 in pieces:
        if r.random() < 0.2 and c0 > 0:
            c0 -= 1  # overlaps the piece before: program order decides
        piece = VSlice(Ref(xw, dt), lead0 + [c0], list(shape[:-1]) + [c1], dt)
        op = r.choice(["neg", "abs", "relu", None]) if dt != "uint8" else None
        val = Un(op, piece, dt) if op else Bin("*", piece, Const(2, dt), dt)
        ctx.stmts.append(Assemble(t, lead0 + [c0], val))
    if all(k == "f" for k in vkey) and r.random() < 0.5:
        read = Ref(t, dt)
    else:
        valid = [e if k == "f" else f"min({e}, {ax.tensor_extent} - {ax.start})"
                 for e, k, ax in zip(shape, vkey, ctx.axes)]
        read = View(t, dt, shape, [0] * len(shape), valid)
    o, off = g.output_for(ctx, M_T(shape, dt, vkey))
    ctx.stmts.append(Assemble(o, off, Bin("+", read, Const(1, dt), dt)))
    return True


def _loop_var(ctx):
    rows = ctx.axes[0]
    if ctx.gear or ctx.loop_depth < 1 or rows.blocks is None or not isinstance(rows.blocks[1], str):
        return None
    return rows.blocks


def h_cond(g, ctx):
    """{cond: "b % m == r"}: a per-block output written two ways by the loop variable's parity."""
    lv = _loop_var(ctx)
    if lv is None or not ctx.dynamic or len(ctx.axes) != 2:
        return False
    count, var = lv
    shape = [a.extent for a in ctx.axes]
    m = g.r.choice([2, 3])
    rem = g.r.randrange(m)
    dt = g.dtype
    g.vec_tile(ctx, shape, force=True)
    src, ts = g.window_input(ctx, shape, dt)
    if ts.shape != tuple(shape):
        return False
    xb = g.fresh("t")
    ctx.stmts.append(Bind(xb, src))
    o, off = g.output_for(ctx, ts)
    cond = f"{var} % {m} == {rem}"
    extra = g.r.random() < 0.3
    if extra:
        cond += f" and {count} > 1"
    then = [Assemble(o, off, Bin("*", Ref(xb, dt), Const(2, dt), dt))]
    els = [Assemble(o, off, Un("neg" if dt != "uint8" else "abs", Ref(xb, dt), dt))]

    def test(d, var=var, m=m, rem=rem, count=count, extra=extra):
        return d[var] % m == rem and (not extra or M.dim_eval(count, d) > 1)
    ctx.stmts.append(RtIf("cond", cond, test, then, els))
    return True


def h_loop_begin_end(g, ctx):
    """A carried value started by `if: is_loop_begin(b)`, written out by `if: is_loop_end(b)`."""
    lv = _loop_var(ctx)
    if lv is None or not ctx.dynamic or not getattr(ctx, "allow_carry", False) or len(ctx.axes) != 2:
        return False
    count, var = lv
    cols = ctx.axes[1]
    dt = g.dtype if g.dtype in FLOATS else "fp32"
    c = g.fresh("c")
    ctx.stmts.append(Raw({"vec_tile": [1, min(cols.extent, 256)]}))
    src, ts = g.window_input(ctx, [ctx.axes[0].extent, cols.extent], dt)
    m = g.fresh("t")
    op = g.r.choice(["amax", "sum"])
    ctx.stmts.append(Bind(m, M.Red(op, src, 0, True, dt)))
    first = [Bind(c, Bin("*", Ref(m, dt), Const(2, dt), dt))]
    rest = [Bind(c, Bin("+", Bin("*", Ref(c, dt), Const(0.5, dt), dt), Ref(m, dt), dt))]
    ctx.stmts.append(RtIf("if", f"is_loop_begin({var})", lambda d, v=var: d[v] == 0, first, rest))
    out = g.fresh("out")
    g.outputs[out] = {"dtype": dt, "shape": [1, cols.tensor_extent]}
    end = [Assemble(out, [0, cols.start], Bin("*", Ref(c, dt), Const(0.5, dt), dt))]

    def is_end(d, v=var, count=count):
        return d[v] + 1 >= M.dim_eval(count, d)
    ctx.stmts.append(RtIf("if", f"is_loop_end({var})", is_end, end))
    ctx.extra_carry[c] = Full([1, cols.tensor_extent], 0, dt)
    return True


def h_static_if(g, ctx):
    """A compile-time `if` on a static loop's variable (first / last iteration)."""
    lv = _loop_var(ctx)
    if lv is None or ctx.dynamic or len(ctx.axes) != 2:
        return False
    count, var = lv
    shape = [a.extent for a in ctx.axes]
    dt = g.dtype
    g.vec_tile(ctx, shape, force=True)
    src, ts = g.window_input(ctx, shape, dt)
    if ts.shape != tuple(shape):
        return False
    o, off = g.output_for(ctx, ts)
    which = g.r.choice(["first", "last"])
    cond = f"{var} == 0" if which == "first" else f"{var} == {count} - 1"

    def test(d, var=var, which=which, count=count):
        return d[var] == 0 if which == "first" else d[var] == M.dim_eval(count, d) - 1
    ctx.stmts.append(Assemble(o, off, Bin("+", src, Const(1, dt), dt)))
    ctx.stmts.append(RtIf("if", cond, test, [Assemble(o, off, Bin("*", src, Const(3, dt), dt))]))
    return True


IN_CONTEXT = {
    "topk": lambda g, c: h_sort(g, c, "topk"), "argsort": lambda g, c: h_sort(g, c, "argsort"),
    "argmax": h_argmax, "one_hot": h_one_hot, "dequantize": h_dequantize, "scaled_mm": h_scaled_mm,
    "local_tensor": h_local_tensor, "cond": h_cond, "loop_begin_end": h_loop_begin_end,
    "static_if": h_static_if,
}


def _mark(g, ctx):
    return (len(ctx.stmts), set(g.inputs), set(g.outputs), set(g.tensors), dict(ctx.extra_carry))


def _rollback(g, ctx, mark):
    n, ins, outs, tens, carry = mark
    del ctx.stmts[n:]
    for d, keep in ((g.inputs, ins), (g.outputs, outs), (g.tensors, tens), (g.kinds, ins)):
        for k in [k for k in d if k not in keep]:
            del d[k]
    ctx.extra_carry.clear()
    ctx.extra_carry.update(carry)


def context_hook(g, ctx, prob=0.35, force=None):
    """At the end of a statement list (top level or a loop body): maybe one of the constructs above."""
    if g.r_lang2.random() >= prob and not force:
        return
    before, rank, cube = len(ctx.stmts), ctx.tile_rank, ctx.cube_set
    with Side(g):
        feats = [force] if force else list(IN_CONTEXT)
        if not force and _loop_var(ctx) is not None and g.r.random() < 0.5:
            feats = ["cond", "loop_begin_end", "static_if"]  # the loop constructs apply only here
        for _ in range(3):  # the first that applies here
            f = g.r.choice(feats)
            mark = _mark(g, ctx)
            if f in IN_CONTEXT and IN_CONTEXT[f](g, ctx):
                _use(g, f)
                break
            _rollback(g, ctx, mark)  # what a hook that did not apply made is dropped
    _restore_tile(ctx, before, rank, cube)


def h_index_select(g, body):
    r = g.r
    NX, D, n = r.choice([4, 9, 16, 40]), r.choice([16, 32, 64, 100]), r.choice([1, 3, 8, 16])
    dt = r.choice([g.dtype, g.dtype, "int32"])
    x = g.new_input([NX, D], dt, kind="small" if dt == "int32" else None)
    idx = g.new_input([n], "int32")
    g.inputs[idx]["values"] = [0, NX - 1]
    g.kinds[idx] = f"range:0:{NX - 1}"
    body.append(Raw({"vec_tile": [r.choice([1, 4, 8]), D]}))
    name = g.fresh("t")
    body.append(Bind(name, IndexSelect(x, idx, dt)))
    out = g.fresh("out")
    g.outputs[out] = {"dtype": dt, "shape": [n, D]}
    val = Ref(name, dt)
    if r.random() < 0.5:
        val = Bin("+", val, Const(1, dt), dt)
    body.append(Assemble(out, [0, 0], val))
    return True


def h_scatter(g, body):
    """cache[0:, 0:] = init; then a loop writes rows where a slot table says (later writes win)."""
    r = g.r
    NS, D, NB = r.choice([4, 8, 20]), r.choice([16, 32, 64, 128]), r.choice([1, 3, 6, 12])
    dt = g.dtype
    init = g.new_input([NS, D], dt)
    src = g.new_input([NB, D], dt)
    slot = g.new_input([NB], "int32")
    g.inputs[slot]["values"] = [0, NS - 1]
    g.kinds[slot] = f"range:0:{NS - 1}"
    cache = g.fresh("out")
    g.outputs[cache] = {"dtype": dt, "shape": [NS, D]}
    body.append(Raw({"vec_tile": [r.choice([1, 4, 8]), D]}))
    body.append(Assemble(cache, [0, 0], Bin("+", Ref(init, dt), Const(0, dt), dt)))
    var = g.fresh("s")
    row = Bin("*", Slice(src, dt, [var, 0], [f"{var} + 1", D]), Const(2, dt), dt)
    inner = [Raw({"vec_tile": [1, D]}), ScatterRow(cache, slot, var, row)]
    body.append(M.Loop(var, NB, inner, kind=r.choice(["dynamic", "static"])))
    return True


def top_hook(g, body, prob=0.12):
    """At the end of the program: maybe an index_select or a row scatter (their own root functions)."""
    if g.r_lang2.random() >= prob:
        return
    with Side(g):
        f = g.r.choice(["index_select", "scatter"])
        (h_index_select if f == "index_select" else h_scatter)(g, body)
        _use(g, f)


def h_arange_top(g, body):
    class C:
        stmts = body
    h_arange(g, C)
    return True


def arange_hook(g, body, prob=0.05):
    if g.r_lang2.random() >= prob:
        return
    with Side(g):
        h_arange_top(g, body)
        _use(g, "arange")


def used(prog_or_gen):
    s = getattr(prog_or_gen, "lang2", None)
    return list(s["used"]) if s else []
