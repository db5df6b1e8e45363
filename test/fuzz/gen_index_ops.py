"""The fuzzer's hook for the index-tensor ops and padding (specs/README.md "Index tensors on the device"):
gather, scatter, index_add, index_put_, pad and fillpad, with NumPy model nodes. gen.py calls index_stmt() from its
own random stream, so seeds drawn before it are unchanged."""
import numpy as np

from model import Bin, Bind, Const, Node, Red, Ref, Value, rnd

INT_DTYPES = ("int32", "int8", "uint8")


class Gather(Node):
    """gather(a, dim, index): an index outside the axis reads 0 (the one-hot sum selects nothing)."""

    def __init__(self, a, dim, index, dtype):
        self.a, self.dim, self.index, self.dtype = a, dim, index, dtype

    def children(self):
        return [self.a, self.index]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        else:
            self.index = new

    def text(self):
        return f"gather({self.a.text()}, {self.dim}, {self.index.text()})"

    def ev(self, env):
        v, iv = self.a.ev(env), self.index.ev(env)
        n = v.a.shape[self.dim]
        idx = np.nan_to_num(iv.a).astype(np.int64)
        inside = (idx >= 0) & (idx < n)
        got = np.take_along_axis(np.nan_to_num(v.a), np.where(inside, idx, 0), self.dim)
        valid = [min(a, b) for a, b in zip(v.valid, iv.valid)]
        valid[self.dim] = iv.valid[self.dim]
        return Value(np.where(inside, got, 0.0), valid)


class IndexScatter(Node):
    """index_add(a, dim, index, source, alpha) or index_put_(a, [index], source, accumulate): rows along dim.
    Duplicates accumulate (index_add, accumulate=true) or the last write wins; outside indices skip."""

    def __init__(self, kind, a, dim, index, source, dtype, alpha=1, accumulate=False):
        self.kind, self.a, self.dim, self.index, self.source = kind, a, dim, index, source
        self.dtype, self.alpha, self.accumulate = dtype, alpha, accumulate

    def children(self):
        return [self.a, self.index, self.source]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        elif i == 1:
            self.index = new
        else:
            self.source = new

    def text(self):
        if self.kind == "index_add":
            al = f", alpha={self.alpha}" if self.alpha != 1 else ""
            return f"index_add({self.a.text()}, {self.dim}, {self.index.text()}, {self.source.text()}{al})"
        acc = ", accumulate=true" if self.accumulate else ""
        return f"index_put_({self.a.text()}, [{self.index.text()}], {self.source.text()}{acc})"

    def ev(self, env):
        v, iv, sv = self.a.ev(env), self.index.ev(env), self.source.ev(env)
        x = np.moveaxis(v.a.copy(), self.dim, 0)
        src = np.moveaxis(sv.a, self.dim, 0)
        idx = iv.a.astype(np.int64)
        m = x.shape[0]
        if self.kind == "index_add" or self.accumulate:
            s = np.zeros_like(x)
            scaled = rnd(src * self.alpha, self.dtype) if self.alpha != 1 else src
            for t, i in enumerate(idx):
                if 0 <= i < m:
                    s[i] += scaled[t]
            out = rnd(x + rnd(s, self.dtype), self.dtype)
        else:
            out = x
            for t, i in enumerate(idx):
                if 0 <= i < m:
                    out[i] = src[t]
        valid = [min(a, b) if k != self.dim else a for k, (a, b) in enumerate(zip(v.valid, sv.valid))]
        return Value(np.moveaxis(out, 0, self.dim), valid)


class Scatter(Node):
    """scatter(a, dim, index, src, reduce): along dim, in index order the last write wins (reduce None)
    or every hit adds; an index outside the axis writes nothing."""

    def __init__(self, a, dim, index, src, reduce, dtype):
        self.a, self.dim, self.index, self.src, self.reduce, self.dtype = a, dim, index, src, reduce, dtype

    def children(self):
        return [self.a, self.index, self.src]

    def replace_child(self, i, new):
        if i == 0:
            self.a = new
        elif i == 1:
            self.index = new
        else:
            self.src = new

    def text(self):
        red = f", reduce={self.reduce}" if self.reduce else ""
        return f"scatter({self.a.text()}, {self.dim}, {self.index.text()}, {self.src.text()}{red})"

    def ev(self, env):
        v, iv, sv = self.a.ev(env), self.index.ev(env), self.src.ev(env)
        x = np.moveaxis(v.a.copy(), self.dim, -1)
        idx = np.moveaxis(np.nan_to_num(iv.a).astype(np.int64), self.dim, -1)
        src = np.moveaxis(sv.a, self.dim, -1)
        n = x.shape[-1]
        lead = [tuple(p) for p in np.ndindex(*x.shape[:-1])]
        acc = np.zeros_like(x)
        for p in lead:
            for j in range(idx.shape[-1]):
                k = idx[p + (j,)]
                if 0 <= k < n:
                    if self.reduce == "add":
                        acc[p + (k,)] += src[p + (j,)]
                    else:
                        x[p + (k,)] = src[p + (j,)]
        if self.reduce == "add":
            x = rnd(x + rnd(acc, self.dtype), self.dtype)
        valid = [min(a, b, c) for a, b, c in zip(v.valid, iv.valid, sv.valid)]
        valid[self.dim] = v.valid[self.dim]
        return Value(np.moveaxis(x, -1, self.dim), valid)


class PadShift(Node):
    """pad(a, [0, p], value)[..., p:p + n]: the last axis shifted left by p, the padding coming in."""

    def __init__(self, a, p, value, rank, n, dtype):
        self.a, self.p, self.value, self.rank, self.n, self.dtype = a, p, value, rank, n, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        sl = ", ".join([":"] * (self.rank - 1) + [f"{self.p}:{self.p + self.n}"])
        return f"pad({self.a.text()}, [0, {self.p}], value={self.value})[{sl}]"

    def ev(self, env):
        v = self.a.ev(env)
        pad = np.full(v.a.shape[:-1] + (self.p,), float(self.value))
        out = np.concatenate([v.a, pad], -1)[..., self.p:self.p + self.n]
        return Value(rnd(out, self.dtype), v.valid)


class FillPad(Node):
    def __init__(self, a, value, dtype):
        self.a, self.value, self.dtype = a, value, dtype

    def children(self):
        return [self.a]

    def replace_child(self, i, new):
        self.a = new

    def text(self):
        return f"fillpad({self.a.text()}, value={self.value})"

    def ev(self, env):
        v = self.a.ev(env)
        out = np.full(v.a.shape, rnd(np.float64(self.value), self.dtype))
        box = tuple(slice(0, n) for n in v.valid)
        out[box] = v.a[box]
        return Value(out, v.a.shape)


def _whole(g, ax):
    ext = ax.tensor_extent
    static = isinstance(ext, int) or isinstance(g.dims.get(str(ext)), int)
    return static and str(ax.start) == "0" and str(ax.stop) == str(ext)


def index_stmt(g, ctx):
    """One of gather / scatter / index_add / index_put_ / pad / fillpad on fresh input windows, bound and assembled
    into an output (gen.py's catalog conventions: the op's axis whole in the window and static)."""
    from gen import PV, T  # gen imports this module first
    r = g.r
    shape = [a.extent for a in ctx.axes]
    vkey = [a.vkey for a in ctx.axes]
    rank = len(shape)
    dt = g.dtype
    if dt == "bool" or rank > 3:
        return
    # axes whole in the window and static in the spec (a "f" key alone may still have a tail statically)
    full = [i for i in range(rank) if vkey[i] == "f" and isinstance(shape[i], int) and 1 < shape[i] <= 64
            and _whole(g, ctx.axes[i])]
    static = all(isinstance(e, int) for e in shape)
    # the ops this window allows, each drawn alike
    ops = ["fillpad"]
    # gather of rank 3 merges its two leading axes (dim moved last): the middle one must be whole
    if full and (rank <= 2 or any((2 if ax == 1 else 1) in full for ax in full)):
        ops.append("gather")
    if full and static and not ctx.gear:  # the source is a whole input of the window's extents
        ops.append("index_add")
        if 0 in full:
            ops.append("index_put")
    if (rank - 1) in full:
        ops.append("pad")
    if full and rank <= 2:
        ops.append("scatter")
    op = r.choice(ops)
    g.vec_tile(ctx, shape)
    a, ta = g.window_input(ctx, list(shape), dt)
    if ta.shape != tuple(shape):
        return
    small = dt in INT_DTYPES
    if op == "gather":
        ax = r.choice([ax for ax in full if rank <= 2 or (2 if ax == 1 else 1) in full])
        ix, _ = g.window_input(ctx, list(shape), "int32")  # "small": -5..5, some outside the axis
        node, mag = Gather(a, ax - rank if r.random() < 0.5 else ax, ix, dt), ta.mag
        if node.dim < 0:
            node.dim += rank
    elif op == "scatter":
        ax = r.choice(full)
        ix, _ = g.window_input(ctx, list(shape), "int32")  # "small": -5..5, duplicates and some outside
        src, ts = g.window_input(ctx, list(shape), dt)
        red = r.choice([None, None, "add"])
        node = Scatter(a, ax, ix, src, red, dt)
        mag = ta.mag + (shape[ax] * ts.mag if red else ts.mag)
        if dt in ("int8", "uint8") and mag > 100:
            return
    elif op in ("index_add", "index_put"):
        ax = r.choice(full) if op == "index_add" else 0
        t = r.randint(1, 6)
        iname = g.new_input([t], "int32", kind=f"range:-1:{shape[ax]}")  # duplicates and one outside
        sshape = list(shape)
        sshape[ax] = t
        sname = g.new_input(sshape, dt, kind="small" if small else None)
        src = Ref(sname, dt)
        if op == "index_add":
            alpha = r.choice([1, 1, 2, -1])
            node = IndexScatter("index_add", a, ax, Ref(iname, "int32"), src, dt, alpha=alpha)
            mag = ta.mag + 6 * 3.0 * abs(alpha) if not small else ta.mag + 6 * 5 * abs(alpha)
        else:
            acc = r.random() < 0.3
            node = IndexScatter("index_put", a, 0, Ref(iname, "int32"), src, dt, accumulate=acc)
            mag = ta.mag + (6 * (5 if small else 3.0) if acc else 0)
        if dt in ("int8", "uint8") and mag > 100:
            return
    elif op == "pad":
        n = shape[-1]
        p = r.randint(1, min(4, n))
        value = r.choice([0, 3, -2]) if not (dt == "uint8") else r.choice([0, 3])
        node, mag = PadShift(a, p, value, rank, n, dt), max(ta.mag, 3)
    else:
        value = r.choice([0, 2, -1]) if dt != "uint8" else r.choice([0, 2])
        partial = [i for i in range(rank) if vkey[i] != "f" and isinstance(shape[i], int)]
        if not partial and any(not isinstance(e, int) for e in shape):
            return
        ax = r.choice(partial) if partial else r.randrange(rank)
        fp = g.fresh("t")
        ctx.stmts.append(Bind(fp, FillPad(a, value, dt)))
        # amax over the filled axis sees the value in the tail; added back to a * 0 (a's valid box)
        node = Bin("+", Bin("*", a, Const(0, dt), dt), Red("amax", Ref(fp, dt), ax, True, dt), dt)
        mag = max(ta.mag, 2)
    name = g.fresh("t")
    ctx.stmts.append(Bind(name, node))
    pv = PV(Ref(name, dt), T(shape, dt, vkey, mag, ta.full))
    ctx.pool.append(pv)
    g.assemble_value(ctx, pv)
